/**
 * The API reference: `GET /docs` (Swagger UI, its assets served from the swagger-ui-dist
 * package on disk, no CDN), the raw description at `GET /openapi.yaml`, and the error codes at
 * `GET /docs/errors` (docs/api.md's "Errors", one anchor per code: every error body's `docUrl`
 * points there). No key needed: none of them holds a secret.
 */
import { readFileSync } from 'node:fs';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { errorDocsPath } from '../../errors/catalogue.js';
import { errorDocsPage } from '../error-docs.js';
import { pageSecurityPolicy } from '../security-headers.js';
import { openApiDocument, openApiFile } from '../validation.js';

export function docsRouter(): Router {
  const router = Router();
  const yamlText = readFileSync(openApiFile, 'utf8');
  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml; charset=utf-8').send(yamlText);
  });
  // before Swagger UI's mount at /docs, which would take the path for one of its assets
  const errorPage = errorDocsPage();
  router.get(errorDocsPath, pageSecurityPolicy(), (_req, res) => {
    res.type('text/html; charset=utf-8').send(errorPage);
  });
  // the page's "Try it out" talks to /rest/v1 on this host
  const document = { ...openApiDocument(), servers: [{ url: '/rest/v1' }] };
  router.use(
    '/docs',
    // Swagger UI under the page policy (security-headers.ts): its own files only, no inline script
    pageSecurityPolicy(),
    swaggerUi.serve,
    swaggerUi.setup(document, {
      customSiteTitle: 'Corporate and Job Search API 2.0.0',
      swaggerOptions: { persistAuthorization: false, tryItOutEnabled: false },
    }),
  );
  return router;
}
