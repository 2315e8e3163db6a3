import type { Kind } from './kind';
import { metricsKind } from './kinds/metrics';
import { attributesKind } from './kinds/attributes';
import { achievementsKind } from './kinds/achievements';
import { pointsSystemsKind } from './kinds/points-systems';
import { streakKind } from './kinds/streak';
import { leaderboardsKind } from './kinds/leaderboards';
import { retentionKind } from './kinds/retention';
import { webhooksKind } from './kinds/webhooks';
import { channelsKind } from './kinds/channels';
import { templatesKind } from './kinds/templates';

/**
 * Every kind of the configuration document, in the order they are written: a
 * kind comes after the kinds it refers to (deletions run in reverse). A new
 * kind is one module here.
 */
export const KINDS: Kind[] = [attributesKind, metricsKind, achievementsKind, pointsSystemsKind, streakKind, leaderboardsKind, retentionKind, webhooksKind, channelsKind, templatesKind];
