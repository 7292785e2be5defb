/**
 * The query console at `/console`: a static page (console/index.html, console.js,
 * console.css, no build step) and the filter catalogue it builds searches from,
 * `/console/catalogue.json`, and the prices the page shows before it spends credits,
 * `/console/prices.json` (this server's configuration, so the page never assumes a default).
 * No key needed for these: the page asks for the key and keeps it in
 * the tab's sessionStorage; it calls /rest/v1 like any other client.
 *
 * The page loads only files from this origin (no inline script or style), so it works under
 * `Content-Security-Policy: default-src 'self'`, which this router sets on its own responses.
 */
import path from 'node:path';
import express, { Router } from 'express';
import { publicCatalogue } from '../../catalogue/public-catalogue.js';
import { projectRoot } from '../../project-root.js';

export const consoleDir = path.join(projectRoot, 'console');

export const consoleCsp =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export interface ConsolePrices {
  /** Credits per certain match of POST /corporates/match (MATCH_CREDIT_COST). */
  matchCreditCost: number;
}

export function consoleRouter(prices: ConsolePrices): Router {
  const router = Router();
  const catalogue = JSON.stringify(publicCatalogue());
  const priceList = JSON.stringify(prices);
  router.use('/console', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', consoleCsp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  router.get('/console/catalogue.json', (_req, res) => {
    res.type('application/json').send(catalogue);
  });
  router.get('/console/prices.json', (_req, res) => {
    res.type('application/json').send(priceList);
  });
  // `/console` and `/console/` both serve the page; its assets are relative to `/console/`
  router.get('/console', (req, res, next) => {
    if (req.path === '/console' && !req.originalUrl.split('?')[0]?.endsWith('/')) {
      res.redirect(301, '/console/');
      return;
    }
    next();
  });
  router.use('/console', express.static(consoleDir, { index: 'index.html', redirect: false, maxAge: 0 }));
  return router;
}
