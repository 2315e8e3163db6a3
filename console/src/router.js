// Client-side routes under /console (the server answers index.html for any of them).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set();
export function navigate(href) {
  history.pushState(null, '', href);
  listeners.forEach((fn) => fn(location.pathname));
}
addEventListener('popstate', () => listeners.forEach((fn) => fn(location.pathname)));

export function usePath() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    listeners.add(setPath);
    return () => listeners.delete(setPath);
  }, []);
  return path;
}

export const Link = ({ href, children, ...rest }) => html`<a href=${href} ...${rest} onClick=${(e) => {
  if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(href);
}}>${children}</a>`;
