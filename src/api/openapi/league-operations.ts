import typia from 'typia';
import type { Batch, Created, Updated } from '../../wire/admin';
import type { AdminLeague, CreateLeague, PatchLeague } from '../../wire/leagues';
import { collection } from './admin-operations';
import type { Operation } from './document';
import { about } from '../app/leagues';

/** Leagues: small cohort boards with tiers, promotion and relegation. */
export const leagueOperations: Operation[] = [
  ...collection({
    path: '/admin/v1/leagues', name: 'leagues', one: 'league', many: 'leagues', tag: 'Admin: leagues',
    item: typia.json.schema<AdminLeague>(), items: typia.json.schema<AdminLeague[]>(),
    create: typia.json.schema<Batch<CreateLeague>>(), created: typia.json.schema<Created<AdminLeague>>(),
    update: typia.json.schema<Batch<PatchLeague>>(), updated: typia.json.schema<Updated<AdminLeague>>(),
  }).map((op) => ({ ...op, description: op.method === 'patch' ? `${about} Tiers and cohort size apply from the next run on.` : about })),
];
