import type { TestServer } from './harness';

/** A user acting once on metric `m` (which sets their profile too). */
export async function actingUser(s: TestServer, id: string, profile: Record<string, unknown> = {}): Promise<void> {
  const r = await s.event('m', { user: { id, name: id.toUpperCase(), ...profile }, value: 1 });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
}

/** Send what is due now: changes flushed (achievements queue there), the scheduler's pass, then the sender's. */
export async function sendDue(s: TestServer): Promise<void> {
  await s.drain();
  await s.app.scheduler.runOnce();
  await s.drain();
  await s.app.messages.runOnce();
}
