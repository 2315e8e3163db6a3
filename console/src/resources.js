// What the console configures: one small description per Admin API collection.
// Limits mirror the API's (src/wire/admin.ts) so the browser refuses what the API would.
const KEY = { k: 'key', label: 'Key', required: true, createOnly: true, pattern: '[A-Za-z0-9_\\-]{1,100}', max: 100, help: 'letters, digits, - and _' };
const NAME = { k: 'name', label: 'Name', required: true };
const DESCRIPTION = { k: 'description', label: 'Description', type: 'textarea', nullable: true };
const STATUS = { k: 'status', label: 'Status', type: 'select', options: ['active', 'inactive'], required: true, default: 'active' };
const BADGE = { k: 'badge.url', label: 'Badge URL', max: 2048 };
const FILTER = (k, label, when) => ({
  k, label, type: 'rows', nullable: true, when,
  of: [{ k: 'attributeId', label: 'Attribute', type: 'ref', ref: '/admin/v1/attributes' }, { k: 'attributeValue', label: 'Value', max: 255 }],
});
const is = (k, ...v) => (values) => v.includes(values[k]);
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

export const metrics = {
  path: '/admin/v1/metrics', title: 'Metrics', noun: 'metric',
  columns: ['name', 'key', 'unitType', 'units'],
  fields: [NAME, KEY, { k: 'unitType', label: 'Unit type', type: 'select', options: ['number', 'currency'] }, { k: 'units', label: 'Units', max: 50 }],
};

export const attributes = {
  path: '/admin/v1/attributes', title: 'Attributes', noun: 'attribute',
  columns: ['name', 'key', 'type'],
  fields: [NAME, KEY, { k: 'type', label: 'Type', type: 'select', options: ['user', 'event'], required: true, createOnly: true, default: 'user' }],
};

export const points = {
  path: '/admin/v1/points', title: 'Points systems', noun: 'points system',
  columns: ['name', 'key', 'maxPoints', 'status'],
  fields: [NAME, KEY, { ...DESCRIPTION, nullable: false }, BADGE, { k: 'maxPoints', label: 'Max points', type: 'int', min: 1, nullable: true }],
};

export const triggers = (systemId) => ({
  path: `/admin/v1/points/${systemId}/triggers`, title: 'Triggers', noun: 'trigger',
  columns: ['type', 'points', 'status'],
  fields: [
    { k: 'type', label: 'Type', type: 'select', options: ['metric', 'achievement', 'streak', 'time', 'user_creation'], required: true, default: 'metric' },
    { k: 'points', label: 'Points', type: 'int', required: true, help: 'negative to deduct; not 0' },
    STATUS,
    { k: 'metricId', label: 'Metric', type: 'ref', ref: '/admin/v1/metrics', when: is('type', 'metric') },
    { k: 'metricThreshold', label: 'Every', type: 'int', min: 1, when: is('type', 'metric') },
    FILTER('eventAttributes', 'Event attributes', is('type', 'metric')),
    { k: 'achievementId', label: 'Achievement', type: 'ref', ref: '/admin/v1/achievements', when: is('type', 'achievement') },
    { k: 'streakLength', label: 'Streak length', type: 'int', min: 1, when: is('type', 'streak') },
    { k: 'timeUnit', label: 'Time unit', type: 'select', options: ['hours', 'days'], when: is('type', 'time') },
    { k: 'timeInterval', label: 'Interval', type: 'int', min: 1, when: is('type', 'time') },
    FILTER('userAttributes', 'User attributes'),
    { k: 'blockIfOutOfPoints', label: 'Refuse events that would go below zero', type: 'bool' },
  ],
});

export const levels = (systemId) => ({
  path: `/admin/v1/points/${systemId}/levels`, title: 'Levels', noun: 'level',
  columns: ['name', 'key', 'points'],
  fields: [NAME, KEY, { k: 'points', label: 'Points', type: 'int', min: 0, required: true }, { ...DESCRIPTION, nullable: false }, BADGE],
});

export const boosts = (systemId) => ({
  path: `/admin/v1/points/${systemId}/boosts`, title: 'Boosts', noun: 'boost',
  columns: ['name', 'userId', 'multiplier', 'start', 'end'],
  fields: [
    NAME,
    { k: 'userId', label: 'User ID (empty: by attributes, or everyone)', createOnly: true },
    { k: 'start', label: 'First day', type: 'date', required: true },
    { k: 'end', label: 'Last day', type: 'date', nullable: true },
    { k: 'multiplier', label: 'Multiplier', type: 'number', required: true, min: 0, max: 100 },
    { k: 'rounding', label: 'Rounding', type: 'select', options: ['down', 'up', 'nearest'] },
    FILTER('userAttributes', 'User attributes'),
  ],
});

export const achievements = {
  path: '/admin/v1/achievements', title: 'Achievements', noun: 'achievement',
  columns: ['name', 'key', 'trigger', 'status'],
  fields: [
    NAME, KEY, DESCRIPTION, BADGE, STATUS,
    { k: 'trigger', label: 'Completed by', type: 'select', options: ['metric', 'streak', 'api', 'achievement'], required: true, default: 'metric' },
    { k: 'metricId', label: 'Metric', type: 'ref', ref: '/admin/v1/metrics', when: is('trigger', 'metric') },
    { k: 'metricValue', label: 'Metric total', type: 'number', min: 0, when: is('trigger', 'metric') },
    FILTER('eventAttributes', 'Event attributes', is('trigger', 'metric')),
    { k: 'streakLength', label: 'Streak length', type: 'int', min: 1, when: is('trigger', 'streak') },
    { k: 'prerequisiteIds', label: 'Prerequisites (all of)', type: 'refs', ref: '/admin/v1/achievements', when: is('trigger', 'achievement') },
    FILTER('userAttributes', 'User attributes'),
  ],
};

export const BOARD_STATES = ['inactive', 'scheduled', 'active', 'finished'];
export const leaderboards = {
  path: '/admin/v1/leaderboards', title: 'Leaderboards', noun: 'leaderboard',
  columns: ['name', 'key', 'rankBy', 'status', 'start', 'end'],
  fields: [
    NAME, KEY, DESCRIPTION,
    { k: 'rankBy', label: 'Rank by', type: 'select', options: ['metric', 'points', 'streak'], required: true, default: 'metric' },
    { k: 'metricId', label: 'Metric', type: 'ref', ref: '/admin/v1/metrics', when: is('rankBy', 'metric') },
    { k: 'pointsSystemId', label: 'Points system', type: 'ref', ref: '/admin/v1/points', when: is('rankBy', 'points') },
    { k: 'status', label: 'Status', type: 'select', options: BOARD_STATES, help: 'active or scheduled: whichever the start date allows' },
    { k: 'maxParticipants', label: 'Max participants', type: 'int', min: 1, max: 1000, nullable: true },
    { k: 'start', label: 'First day', type: 'date' },
    { k: 'end', label: 'Last day', type: 'date', nullable: true },
    { k: 'startTime', label: 'Start time (UTC)', type: 'time', nullable: true },
    { k: 'endTime', label: 'End time (UTC)', type: 'time', nullable: true },
    { k: 'runUnit', label: 'Repeats every (unit)', type: 'select', options: ['day', 'month', 'year'], nullable: true },
    { k: 'runInterval', label: 'Repeats every (count)', type: 'int', min: 1, max: 3650, nullable: true },
    { k: 'breakdownAttributes', label: 'Breakdown by', type: 'refs', ref: '/admin/v1/attributes' },
  ],
};

// Laurel's leagues (docs/leagues.md): tiers and cohort size apply from the next run on.
export const leagues = {
  path: '/admin/v1/leagues', title: 'Leagues', noun: 'league',
  columns: ['name', 'key', 'rankBy', 'cadence', 'timeZone', 'cohortSize', 'status'],
  fields: [
    NAME, KEY, DESCRIPTION, STATUS,
    { k: 'rankBy', label: 'Rank by', type: 'select', options: ['metric', 'points'], required: true, createOnly: true, default: 'metric' },
    { k: 'metricId', label: 'Metric', type: 'ref', ref: '/admin/v1/metrics', createOnly: true, when: is('rankBy', 'metric') },
    { k: 'pointsSystemId', label: 'Points system', type: 'ref', ref: '/admin/v1/points', createOnly: true, when: is('rankBy', 'points') },
    { k: 'cadence', label: 'Runs', type: 'select', options: ['daily', 'weekly', 'monthly'], required: true, createOnly: true, default: 'weekly' },
    { k: 'weekStart', label: 'Weeks start on', type: 'select', options: WEEKDAYS, createOnly: true, when: is('cadence', 'weekly') },
    { k: 'timeZone', label: 'Time zone of the run boundary (empty: the tenant default)', createOnly: true, max: 100 },
    { k: 'cohortSize', label: 'Cohort size (default 30)', type: 'int', min: 2, max: 100 },
    {
      k: 'tiers', label: 'Tiers, lowest first', type: 'rows',
      of: [{ k: 'key', label: 'Key', max: 100 }, { k: 'name', label: 'Name' }, { k: 'promote', label: 'Promote', type: 'int', min: 0, max: 100 }, { k: 'relegate', label: 'Relegate', type: 'int', min: 0, max: 100 }],
    },
  ],
};

export const WEBHOOK_EVENTS = [
  'achievement.completed', 'streak.started', 'streak.extended', 'streak.lost', 'streak.freeze_consumed', 'streak.freeze_earned',
  'points.changed', 'points.level_changed', 'points.boost_started', 'points.boost_finished',
  'leaderboard.started', 'leaderboard.changed', 'leaderboard.rank_changed', 'leaderboard.finished',
  'league.promoted', 'league.relegated', 'league.finished',
];
export const webhooks = {
  path: '/admin/v1/webhooks', title: 'Webhooks', noun: 'webhook endpoint',
  columns: ['url', 'status', 'eventTypes'],
  fields: [
    { k: 'url', label: 'URL', required: true, max: 2048 },
    { k: 'eventTypes', label: 'Events', type: 'multi', options: WEBHOOK_EVENTS, required: true },
    DESCRIPTION, STATUS,
  ],
};

export const tenants = {
  path: '/admin/v1/tenants', title: 'Tenants', noun: 'tenant',
  columns: ['name', 'customerId', 'status'],
  fields: [{ k: 'customerId', label: 'Customer ID (the Tenant-ID header)', required: true }, NAME],
};

export const streak = [
  { k: 'enabled', label: 'Enabled', type: 'bool' },
  { k: 'frequency', label: 'Frequency', type: 'select', options: ['daily', 'weekly', 'monthly'], required: true },
  {
    k: 'metrics', label: 'Metrics and thresholds', type: 'rows',
    of: [{ k: 'metricId', label: 'Metric', type: 'ref', ref: '/admin/v1/metrics' }, { k: 'threshold', label: 'Threshold', type: 'number', min: 0 }],
  },
  { k: 'mode', label: 'A period counts when', type: 'select', options: ['all', 'any'], required: true },
  { k: 'weekStart', label: 'Weeks start on', type: 'select', options: WEEKDAYS, required: true },
  { k: 'initialFreezes', label: 'Freezes at start', type: 'int', min: 0, max: 100 },
  { k: 'freezeAutoEarnInterval', label: 'Earn freezes every (days, 0: never)', type: 'int', min: 0, max: 3650 },
  { k: 'freezeAutoEarnAmount', label: 'Freezes earned each time', type: 'int', min: 0, max: 100 },
  { k: 'maxFreezes', label: 'Most freezes held', type: 'int', min: 0, max: 100 },
];

export const applicationKey = [
  { k: 'userId', label: 'User ID', required: true },
  { k: 'rateLimit.perSecond', label: 'Requests per second (0: unlimited, empty: default)', type: 'number', min: 0, max: 1000000 },
  { k: 'rateLimit.burst', label: 'Burst', type: 'int', min: 1, max: 1000000 },
];

export const deadLetters = {
  path: '/admin/v1/dead-letters', title: 'Dead letters', noun: 'dead letter',
  columns: ['firstFailedAt', 'error', 'sqlstate', 'replays', 'record'],
};
