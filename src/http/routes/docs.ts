/**
 * The API reference: `GET /docs` (Swagger UI, its assets served from the swagger-ui-dist
 * package on disk, no CDN) and the raw description at `GET /openapi.yaml`. No key needed:
 * the description holds no secret.
 */
import { readFileSync } from 'node:fs';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { pageSecurityPolicy } from '../security-headers.js';
import { openApiDocument, openApiFile } from '../validation.js';

export function docsRouter(): Router {
  const router = Router();
  const yamlText = readFileSync(openApiFile, 'utf8');
  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml; charset=utf-8').send(yamlText);
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
