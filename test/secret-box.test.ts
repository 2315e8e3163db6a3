import t from 'tap';
import { randomBytes } from 'node:crypto';
import { parseSecretsKey, SecretBox } from '../src/domain/secret-box';

t.test('a sealed secret opens to its text, and holds none of it in the clear', async (t) => {
  const box = new SecretBox([randomBytes(32)]);
  const sealed = box.seal('smtp-password-123');
  t.notMatch(sealed, /smtp-password-123/);
  t.ok(SecretBox.isSealed(sealed));
  t.equal(box.open(sealed), 'smtp-password-123');
  t.not(box.seal('x'), box.seal('x'), 'a fresh IV each time');
});

t.test('an altered value or a foreign key is refused', async (t) => {
  const box = new SecretBox([randomBytes(32)]);
  const sealed = box.seal('secret');
  const raw = Buffer.from(sealed.split(':')[3]!, 'base64');
  raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
  const altered = sealed.split(':').slice(0, 3).join(':') + ':' + raw.toString('base64');
  t.throws(() => box.open(altered));
  t.throws(() => new SecretBox([randomBytes(32)]).open(sealed), /unknown secrets key/);
});

t.test('after a rotation the previous key still opens, and only new seals are current', async (t) => {
  const oldKey = randomBytes(32);
  const before = new SecretBox([oldKey]).seal('webhook-secret');
  const rotated = new SecretBox([randomBytes(32), oldKey]);
  t.equal(rotated.open(before), 'webhook-secret');
  t.notOk(rotated.current(before));
  t.ok(rotated.current(rotated.seal('webhook-secret')));
});

t.test('SECRETS_KEY is 32 bytes as hex or base64', async (t) => {
  const k = randomBytes(32);
  t.same(parseSecretsKey(k.toString('hex')), k);
  t.same(parseSecretsKey(k.toString('base64')), k);
  t.throws(() => parseSecretsKey('short'), /32 bytes/);
});
