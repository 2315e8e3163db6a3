import t from 'tap';
import fc from 'fast-check';
import { Command } from 'ioredis';
import { BufferCommand } from '../src/engine/buffer-command';
import { sharedRedis } from './helpers/harness';

// Every script call is written by BufferCommand: a byte out of place breaks every event.
const args = fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.nat(), fc.integer()), { maxLength: 40 });

t.test('a command is framed byte for byte as ioredis frames it, whatever its arguments hold', async (t) => {
  fc.assert(fc.property(args, (xs) => {
    const ours = new BufferCommand('FCALL', [...xs]).toWritable();
    const theirs = new Command('FCALL', [...xs]).toWritable(undefined as never);
    t.same(ours, typeof theirs === 'string' ? Buffer.from(theirs, 'utf8') : theirs);
  }), { numRuns: 500 });
});

t.test('Redis reads back what was sent, in any script or length', async (t) => {
  const r = await sharedRedis(t);
  const long = 'é'.repeat(5000);
  for (const s of ['', 'plain', 'tab\t\r\n$3\r\n', '日本語 🙂', long]) {
    t.equal(await r.sendCommand(new BufferCommand('ECHO', [s], { replyEncoding: 'utf8' })), s);
  }
  await t.rejects(r.sendCommand(new BufferCommand('FCALL', ['no-such-function', 0], { replyEncoding: 'utf8' })) as Promise<unknown>, /function not found/i,
    'an error reply reaches the caller');
});

t.test('a script call made from flat arguments names the keys ioredis finds in the nested form (a cluster routes by them)', async (t) => {
  const keys = ['{t:1}:u:a', '{t:1}:stream'];
  const ours = new BufferCommand('FCALL', ['fn', keys.length, ...keys, 'x', 3]);
  const theirs = new Command('FCALL', ['fn', keys.length, keys, ['x', 3]]);
  t.same(ours.getKeys(), keys);
  t.equal(ours.getSlot(), theirs.getSlot());
  t.same(ours.toWritable(), Buffer.from(theirs.toWritable(undefined as never) as string, 'utf8'));
});
