import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { reply, Reply, Request, Route } from '../http/server';

/** Where the console is served; it is HTML and assets, not API, so /openapi.json leaves these routes out. */
export const CONSOLE_PATH = '/console';
const ASSETS = `${CONSOLE_PATH}/assets/`;

/**
 * The console runs only its own bundled script and stylesheet: no inline code
 * or styles, no other origin, and no framing. Attacker-controlled values (user
 * ids, attributes) are rendered as text, and this is the second wall.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

interface Asset {
  type: string;
  raw: Buffer;
  /** Written beside it by the build (`.gz`). */
  gzip: Buffer | null;
}

/** The built console (`npm run build` writes dist/console), read once: it never changes while the process runs. */
function load(dir: string): { index: Asset; assets: Map<string, Asset> } | null {
  const read = (file: string): Asset => ({
    type: TYPES[path.extname(file)] ?? 'application/octet-stream',
    raw: readFileSync(file),
    gzip: existsSync(`${file}.gz`) ? readFileSync(`${file}.gz`) : null,
  });
  if (!existsSync(path.join(dir, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  const assetDir = path.join(dir, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    if (!name.endsWith('.gz')) assets.set(name, read(path.join(assetDir, name)));
  }
  return { index: read(path.join(dir, 'index.html')), assets };
}

function send(req: Request, a: Asset, cache: string): Reply {
  const gz = a.gzip && /\bgzip\b/.test(req.acceptEncoding);
  const headers: Record<string, string> = { ...SECURITY_HEADERS, 'Content-Type': a.type, 'Cache-Control': cache, Vary: 'Accept-Encoding' };
  if (gz) headers['Content-Encoding'] = 'gzip';
  return { status: 200, body: gz ? a.gzip! : a.raw, headers };
}

/**
 * `GET /console` and everything under it. Assets have content-hashed names
 * and are cached for a year; index.html is revalidated every time so a new
 * build is picked up at once. Any other path is a client-side route and gets
 * index.html; a missing asset is a 404.
 */
export function consoleRoutes(dir = path.resolve(__dirname, '../../console')): Route[] {
  const built = load(dir);
  const handler = (req: Request): Reply => {
    if (!built) return reply(404, { error: 'The console was not built: run npm run build' });
    if (req.path.startsWith(ASSETS)) {
      const asset = built.assets.get(req.path.slice(ASSETS.length));
      return asset ? send(req, asset, 'public, max-age=31536000, immutable') : reply(404, { error: 'No such console asset' }, SECURITY_HEADERS);
    }
    return send(req, built.index, 'no-cache');
  };
  return [
    { method: 'get', pattern: CONSOLE_PATH, handler },
    { method: 'get', pattern: `${CONSOLE_PATH}/*`, handler },
  ];
}
