/**
 * The handlers of /webhooks (their chains: src/http/route-table.ts; the store:
 * src/webhooks/store.ts; the guide: docs/webhooks.md):
 *
 *   POST   /webhooks                          {savedSearchId, url, events?} -> 201 the webhook with its secret
 *   GET    /webhooks                          the caller's webhooks, newest first
 *   GET    /webhooks/{id}                     one of them (never its secret)
 *   DELETE /webhooks/{id}                     204; messages already queued for it are dropped
 *   POST   /webhooks/{id}/rotate-secret       a new secret (the previous one signs beside it for a day)
 *   POST   /webhooks/{id}/enable              a webhook a 410 Gone disabled, active again
 *   GET    /webhooks/{id}/deliveries?limit=   its last delivery attempts, newest first
 *
 * A webhook sends the changes of one of the caller's watched saved searches. Its URL is checked
 * here (https, no private, loopback or link-local address: src/webhooks/address.ts) and again
 * at every connection. Another user's webhook is a 404, as an unknown one. Free, rate limited
 * as the saved searches.
 */
import type { Request, RequestHandler, Response } from 'express';
import { errors } from '../../errors/catalogue.js';
import { savedSearchRedis } from '../../saved-searches/start-watch.js';
import { SavedSearchStore } from '../../saved-searches/store.js';
import type { Services } from '../../services.js';
import { checkUrl } from '../../webhooks/address.js';
import { type WebhookEventType, WebhookStore, webhookEventTypes } from '../../webhooks/store.js';
import { stillAnswering } from '../deadline.js';
import { refuseBody } from '../empty-body.js';
import { currentUser } from '../locals.js';

function storesOf(services: Services): { webhooks: WebhookStore; savedSearches: SavedSearchStore } {
  const redis = savedSearchRedis(services);
  if (!redis) throw errors.savedSearchesUnavailable();
  const prefix = services.config.redisPrefix;
  return { webhooks: new WebhookStore(redis, prefix), savedSearches: new SavedSearchStore(redis, prefix) };
}

/** The path's webhook id: its 2nd segment (`/webhooks/{id}/...`). */
function idOf(req: Request): string {
  return req.path.split('/')[2] ?? '';
}

function createHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const { webhooks, savedSearches } = storesOf(services);
    const userId = currentUser(res).id;
    const { savedSearchId, url, events } = req.body as {
      savedSearchId: string;
      url: string;
      events?: WebhookEventType[];
    };
    const badUrl = checkUrl(url, { allowLoopback: services.config.webhooks.allowLoopback });
    if (badUrl) throw errors.validation([{ field: 'url', reason: badUrl }]);
    const saved = await savedSearches.get(userId, savedSearchId);
    if (!saved)
      throw errors.validation([
        { field: 'savedSearchId', reason: 'is not one of your saved searches', value: savedSearchId },
      ]);
    if (!saved.watching)
      throw errors.validation([
        {
          field: 'savedSearchId',
          reason: `is not watched, so it has no changes to send: ${saved.notWatchingReason ?? 'it was saved without it'}`,
        },
      ]);
    // a search sends the events of its records: company.* for companies, job.* for postings
    const kindOf = `${saved.search === 'jobs' ? 'job' : 'company'}.`;
    const problems = (events ?? []).flatMap((type, i) =>
      type.startsWith(kindOf)
        ? []
        : [
            {
              field: `events[${i}]`,
              reason: `is not an event of a ${saved.search === 'jobs' ? 'job' : 'company'} search (${kindOf}*)`,
              value: type,
            },
          ],
    );
    if (problems.length > 0) throw errors.validation(problems);
    const chosen = webhookEventTypes.filter(
      (type) => type.startsWith(kindOf) && (!events || events.includes(type)),
    );
    const cap = services.config.webhooks.perUser;
    const created = await webhooks.create(userId, { savedSearchId, url, events: chosen }, cap);
    if (!created) throw errors.webhookLimit(cap);
    if (stillAnswering(res)) res.status(201).location(`/rest/v1/webhooks/${created.id}`).json(created);
  };
}

function listHandler(services: Services): RequestHandler {
  return async (_req: Request, res: Response) => {
    const results = await storesOf(services).webhooks.list(currentUser(res).id);
    if (stillAnswering(res)) res.json({ results });
  };
}

function getHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const webhook = await storesOf(services).webhooks.get(currentUser(res).id, idOf(req));
    if (!webhook) throw errors.notFound('The webhook');
    if (stillAnswering(res)) res.json(webhook);
  };
}

function deleteHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const deleted = await storesOf(services).webhooks.delete(currentUser(res).id, idOf(req));
    if (!deleted) throw errors.notFound('The webhook');
    if (stillAnswering(res)) res.status(204).end();
  };
}

function rotateHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    refuseBody(req, 'must be empty: a rotation takes nothing');
    const rotated = await storesOf(services).webhooks.rotate(currentUser(res).id, idOf(req));
    if (!rotated) throw errors.notFound('The webhook');
    if (stillAnswering(res)) res.json(rotated);
  };
}

function enableHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    refuseBody(req, 'must be empty: enabling takes nothing');
    const enabled = await storesOf(services).webhooks.enable(currentUser(res).id, idOf(req));
    if (!enabled) throw errors.notFound('The webhook');
    if (stillAnswering(res)) res.json(enabled);
  };
}

function deliveriesHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const { webhooks } = storesOf(services);
    const id = idOf(req);
    if (!(await webhooks.get(currentUser(res).id, id))) throw errors.notFound('The webhook');
    const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
    const deliveries = await webhooks.deliveries(id, limit);
    if (stillAnswering(res)) res.json({ deliveries });
  };
}

export function webhookHandlers(services: Services) {
  return {
    webhookCreate: createHandler(services),
    webhookList: listHandler(services),
    webhook: getHandler(services),
    webhookDelete: deleteHandler(services),
    webhookRotate: rotateHandler(services),
    webhookEnable: enableHandler(services),
    webhookDeliveries: deliveriesHandler(services),
  };
}
