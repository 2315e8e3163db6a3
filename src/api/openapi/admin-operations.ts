import typia from 'typia';
import type {
  AdminAchievement, AdminAttribute, AdminLeaderboard, AdminMetric, AdminPointsBoost, AdminPointsLevel, AdminPointsSystem,
  AdminPointsTrigger, AdminTenant, Batch, CreateAchievement, CreateAttribute, CreateBoard, CreateBoost, Created,
  AdminPointsSystemWithItems, CreateLevel, CreateMetric, CreateSystem, CreateTenant, CreateTrigger, Deleted,
  IdsQuery, ListQuery, PatchAchievement, PatchBoard, PatchBoost, PatchLevel, PatchSystem, PatchTrigger,
  UpdateAttribute, Updated, UpdateMetric, UpdateTenant,
  AdminWebhook, WebhookWithSecret, PatchWebhook, Redelivered, RotatedSecret, WebhookDeliveriesQuery, WebhookDelivery, WebhookFields,
} from '../../wire/admin';
import type { Operation, Unit } from './document';

const admin = 'admin' as const;
const list = typia.json.schema<ListQuery>();
const ids = typia.json.schema<IdsQuery>();
const deleted = typia.json.schema<Deleted>();

interface Collection {
  /** The collection's path. */
  path: string;
  /** Name in operation ids (`metrics` → `admin_metrics_list`). */
  name: string;
  /** Singular and plural nouns for summaries. */
  one: string;
  many: string;
  tag: string;
  /** Tenants are account-wide: Tenant-ID does not apply. */
  tenant?: boolean;
  item: Unit;
  items: Unit;
  create: Unit;
  created: Unit;
  update: Unit;
  updated: Unit;
}

/** The five routes every config collection has (see src/api/admin/resource.ts). */
export function collection(c: Collection): Operation[] {
  const common = { tag: c.tag, auth: admin, tenant: c.tenant };
  return [
    {
      ...common, method: 'get', path: c.path, operationId: `admin_${c.name}_list`, summary: `List ${c.many}`, query: list,
      responses: { 200: { description: `A page of ${c.many}, oldest first`, schema: c.items } },
    },
    {
      ...common, method: 'get', path: `${c.path}/:id`, operationId: `admin_${c.name}_get`, summary: `Get a ${c.one}`,
      responses: { 200: { description: `The ${c.one}`, schema: c.item } },
    },
    {
      ...common, method: 'post', path: c.path, operationId: `admin_${c.name}_create`, summary: `Create ${c.many}`, body: c.create,
      responses: {
        201: { description: 'Some were created; the rest are issues', schema: c.created },
        200: { description: 'None were created: every item is an issue', schema: c.created },
      },
    },
    {
      ...common, method: 'patch', path: c.path, operationId: `admin_${c.name}_update`, summary: `Update ${c.many} (by id)`, body: c.update,
      responses: { 200: { description: 'What was updated, and issues by id', schema: c.updated } },
    },
    {
      ...common, method: 'del', path: c.path, operationId: `admin_${c.name}_delete`, summary: `Delete ${c.many} (by id)`, query: ids,
      responses: { 200: { description: 'What was deleted, and ids not found', schema: deleted } },
    },
  ];
}

/** The Admin API. */
export const adminOperations: Operation[] = [
  ...collection({
    path: '/admin/v1/metrics', name: 'metrics', one: 'metric', many: 'metrics', tag: 'Admin: metrics',
    item: typia.json.schema<AdminMetric>(), items: typia.json.schema<AdminMetric[]>(),
    create: typia.json.schema<Batch<CreateMetric>>(), created: typia.json.schema<Created<AdminMetric>>(),
    update: typia.json.schema<Batch<UpdateMetric>>(), updated: typia.json.schema<Updated<AdminMetric>>(),
  }),
  ...collection({
    path: '/admin/v1/attributes', name: 'attributes', one: 'attribute', many: 'attributes', tag: 'Admin: attributes',
    item: typia.json.schema<AdminAttribute>(), items: typia.json.schema<AdminAttribute[]>(),
    create: typia.json.schema<Batch<CreateAttribute>>(), created: typia.json.schema<Created<AdminAttribute>>(),
    update: typia.json.schema<Batch<UpdateAttribute>>(), updated: typia.json.schema<Updated<AdminAttribute>>(),
  }),
  ...collection({
    path: '/admin/v1/points', name: 'points_systems', one: 'points system', many: 'points systems', tag: 'Admin: points',
    item: typia.json.schema<AdminPointsSystem>(), items: typia.json.schema<AdminPointsSystem[]>(),
    create: typia.json.schema<Batch<CreateSystem>>(), created: typia.json.schema<Created<AdminPointsSystemWithItems>>(),
    update: typia.json.schema<Batch<PatchSystem>>(), updated: typia.json.schema<Updated<AdminPointsSystem>>(),
  }),
  ...collection({
    path: '/admin/v1/points/:systemId/triggers', name: 'points_triggers', one: 'points trigger', many: 'points triggers', tag: 'Admin: points',
    item: typia.json.schema<AdminPointsTrigger>(), items: typia.json.schema<AdminPointsTrigger[]>(),
    create: typia.json.schema<Batch<CreateTrigger>>(), created: typia.json.schema<Created<AdminPointsTrigger>>(),
    update: typia.json.schema<Batch<PatchTrigger>>(), updated: typia.json.schema<Updated<AdminPointsTrigger>>(),
  }),
  ...collection({
    path: '/admin/v1/points/:systemId/levels', name: 'points_levels', one: 'points level', many: 'points levels', tag: 'Admin: points',
    item: typia.json.schema<AdminPointsLevel>(), items: typia.json.schema<AdminPointsLevel[]>(),
    create: typia.json.schema<Batch<CreateLevel>>(), created: typia.json.schema<Created<AdminPointsLevel>>(),
    update: typia.json.schema<Batch<PatchLevel>>(), updated: typia.json.schema<Updated<AdminPointsLevel>>(),
  }),
  ...collection({
    path: '/admin/v1/points/:systemId/boosts', name: 'points_boosts', one: 'points boost', many: 'points boosts', tag: 'Admin: points',
    item: typia.json.schema<AdminPointsBoost>(), items: typia.json.schema<AdminPointsBoost[]>(),
    create: typia.json.schema<Batch<CreateBoost>>(), created: typia.json.schema<Created<AdminPointsBoost>>(),
    update: typia.json.schema<Batch<PatchBoost>>(), updated: typia.json.schema<Updated<AdminPointsBoost>>(),
  }),
  ...collection({
    path: '/admin/v1/achievements', name: 'achievements', one: 'achievement', many: 'achievements', tag: 'Admin: achievements',
    item: typia.json.schema<AdminAchievement>(), items: typia.json.schema<AdminAchievement[]>(),
    create: typia.json.schema<Batch<CreateAchievement>>(), created: typia.json.schema<Created<AdminAchievement>>(),
    update: typia.json.schema<Batch<PatchAchievement>>(), updated: typia.json.schema<Updated<AdminAchievement>>(),
  }),
  ...collection({
    path: '/admin/v1/leaderboards', name: 'leaderboards', one: 'leaderboard', many: 'leaderboards', tag: 'Admin: leaderboards',
    item: typia.json.schema<AdminLeaderboard>(), items: typia.json.schema<AdminLeaderboard[]>(),
    create: typia.json.schema<Batch<CreateBoard>>(), created: typia.json.schema<Created<AdminLeaderboard>>(),
    update: typia.json.schema<Batch<PatchBoard>>(), updated: typia.json.schema<Updated<AdminLeaderboard>>(),
  }),
  ...collection({
    path: '/admin/v1/tenants', name: 'tenants', one: 'tenant', many: 'tenants', tag: 'Admin: tenants', tenant: false,
    item: typia.json.schema<AdminTenant>(), items: typia.json.schema<AdminTenant[]>(),
    create: typia.json.schema<Batch<CreateTenant>>(), created: typia.json.schema<Created<AdminTenant>>(),
    update: typia.json.schema<Batch<UpdateTenant>>(), updated: typia.json.schema<Updated<AdminTenant>>(),
  }),
  ...collection({
    path: '/admin/v1/webhooks', name: 'webhooks', one: 'webhook endpoint', many: 'webhook endpoints', tag: 'Admin: webhooks',
    item: typia.json.schema<AdminWebhook>(), items: typia.json.schema<AdminWebhook[]>(),
    create: typia.json.schema<Batch<WebhookFields>>(), created: typia.json.schema<Created<WebhookWithSecret>>(),
    update: typia.json.schema<Batch<PatchWebhook>>(), updated: typia.json.schema<Updated<AdminWebhook>>(),
  }),
  {
    method: 'post', path: '/admin/v1/webhooks/:id/rotate-secret', operationId: 'admin_webhooks_rotate_secret', tag: 'Admin: webhooks',
    auth: admin, summary: "Replace a webhook endpoint's signing secret",
    description: 'The new secret is in this response only; deliveries are signed with it from now on.',
    responses: { 200: { description: 'The new secret', schema: typia.json.schema<RotatedSecret>() } },
  },
  {
    method: 'get', path: '/admin/v1/webhooks/:id/deliveries', operationId: 'admin_webhooks_deliveries_list', tag: 'Admin: webhooks',
    auth: admin, summary: "List a webhook endpoint's deliveries",
    query: typia.json.schema<WebhookDeliveriesQuery>(),
    responses: { 200: { description: 'A page of deliveries, newest first', schema: typia.json.schema<WebhookDelivery[]>() } },
  },
  {
    method: 'post', path: '/admin/v1/webhooks/:id/redeliver', operationId: 'admin_webhooks_redeliver_dead', tag: 'Admin: webhooks',
    auth: admin, summary: "Send a webhook endpoint's dead deliveries again",
    description: 'Each starts over with a fresh retry budget (after a receiver outage, say).',
    responses: { 200: { description: 'How many were queued again', schema: typia.json.schema<Redelivered>() } },
  },
  {
    method: 'post', path: '/admin/v1/webhooks/deliveries/:deliveryId/redeliver', operationId: 'admin_webhooks_delivery_redeliver',
    tag: 'Admin: webhooks', auth: admin, summary: 'Send one webhook delivery again',
    description: 'Whatever its state, it is queued now with a fresh retry budget.',
    responses: { 200: { description: 'The delivery, pending again', schema: typia.json.schema<WebhookDelivery>() } },
  },
];
