/**
 * The webhook tools: send a watched saved search's changes to an HTTPS URL, list the user's
 * webhooks, read one's delivery log, delete one (POST, GET and DELETE /webhooks; docs/webhooks.md).
 * The signing secret is in the creation's answer only, as the API shows it once.
 */
import type { Webhook, WebhookCreate } from '../client/src/index.js';
import { contractProperties, parameterSchema } from './contract.js';
import { costOf } from './costs.js';
import type { Body } from './results.js';
import type { ToolSpec } from './tool-spec.js';

const idParameter = () => parameterSchema('get', '/webhooks/{webhookId}', 'webhookId');
const line = (webhook: Webhook) =>
  `${webhook.id}: ${webhook.url} for saved search ${webhook.savedSearchId} (${webhook.events.join(', ')})${
    webhook.disabledAt ? `, disabled ${webhook.disabledAt}: ${webhook.disabledReason}` : ''
  }`;

const createTool: ToolSpec = {
  name: 'create_webhook',
  title: 'Send a saved search’s changes to a URL (変化の通知先の登録)',
  description: `変化の通知先の登録: subscribes an HTTPS URL to the changes of one of the user's watched saved searches (company.entered/left/changed for a company search, job.entered/left/changed for a job search); each change is POSTed there signed with the secret this answer holds, shown this once (POST /rest/v1/webhooks). ${costOf('POST', '/webhooks')}`,
  properties: contractProperties('WebhookCreate'),
  required: ['savedSearchId', 'url'],
  readOnly: false,
  async run(api, args) {
    const { meta, ...created } = await api.createWebhook(args as unknown as WebhookCreate);
    return {
      summary: `Webhook ${line(created)}. Its signing secret, shown this once: ${created.secret}.`,
      body: created as unknown as Body,
      meta,
    };
  },
};

const listTool: ToolSpec = {
  name: 'list_webhooks',
  title: 'Webhooks (変化の通知先)',
  description: `変化の通知先: the user's webhooks, newest first, without their secrets (GET /rest/v1/webhooks). ${costOf('GET', '/webhooks')}`,
  properties: {},
  async run(api) {
    const { meta, results } = await api.webhooks();
    return {
      summary: `${results.length} webhooks${results.length ? `: ${results.map(line).join('; ')}` : ''}.`,
      body: { results },
      meta,
    };
  },
};

const deliveriesTool: ToolSpec = {
  name: 'webhook_deliveries',
  title: 'A webhook’s delivery log (通知の配信記録)',
  description: `通知の配信記録: the webhook's last delivery attempts, newest first: event, attempt, outcome, the receiver's status code (GET /rest/v1/webhooks/{webhookId}/deliveries). ${costOf('GET', '/webhooks/{webhookId}/deliveries')}`,
  properties: {
    webhookId: idParameter(),
    limit: parameterSchema('get', '/webhooks/{webhookId}/deliveries', 'limit'),
  },
  required: ['webhookId'],
  async run(api, args) {
    const { meta, deliveries } = await api.webhookDeliveries(String(args.webhookId ?? ''), {
      ...(args.limit === undefined ? {} : { limit: args.limit as number }),
    });
    const delivered = deliveries.filter((entry) => entry.outcome === 'delivered').length;
    return {
      summary: `${deliveries.length} attempts, ${delivered} delivered.`,
      body: { deliveries } as unknown as Body,
      meta,
    };
  },
};

const deleteTool: ToolSpec = {
  name: 'delete_webhook',
  title: 'Delete a webhook (通知先の削除)',
  description: `通知先の削除: deletes one of the user's webhooks; deliveries not yet made are dropped (DELETE /rest/v1/webhooks/{webhookId}). ${costOf('DELETE', '/webhooks/{webhookId}')}`,
  properties: { webhookId: idParameter() },
  required: ['webhookId'],
  readOnly: false,
  async run(api, args) {
    const { meta } = await api.deleteWebhook(String(args.webhookId ?? ''));
    return { summary: `Deleted webhook ${String(args.webhookId)}.`, body: {}, meta };
  },
};

const enableTool: ToolSpec = {
  name: 'enable_webhook',
  title: 'Enable a disabled webhook (通知先の再開)',
  description: `通知先の再開: makes a webhook its receiver's 410 Gone disabled active again; what failed is sent again with the same event ids, then the changes since (POST /rest/v1/webhooks/{webhookId}/enable). ${costOf('POST', '/webhooks/{webhookId}/enable')}`,
  properties: { webhookId: idParameter() },
  required: ['webhookId'],
  readOnly: false,
  async run(api, args) {
    const { meta, ...webhook } = await api.enableWebhook(String(args.webhookId ?? ''));
    return { summary: `Webhook ${webhook.id} is active.`, body: webhook as unknown as Body, meta };
  },
};

export const webhookTools: ToolSpec[] = [createTool, listTool, deliveriesTool, enableTool, deleteTool];
