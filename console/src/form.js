// One form for every resource, driven by a list of field descriptions:
//   { k: 'name' or 'badge.url', label, type, required, options, ref, of, when, createOnly, nullable, min, max, pattern, help }
// type: text | textarea | int | number | select | bool | date | time | ref (one of a list) | refs (several, as checkboxes)
//       | multi (several fixed options) | rows (a list of sub-items, `of` describes their fields)
// Values are sent as the API names them; the API's own message is shown when it refuses.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { listAll } from './api.js';

export const getPath = (obj, k) => k.split('.').reduce((o, part) => (o == null ? undefined : o[part]), obj);
function setPath(obj, k, v) {
  const parts = k.split('.');
  let o = obj;
  for (const part of parts.slice(0, -1)) o = o[part] ??= {};
  o[parts.at(-1)] = v;
}

/** Lists behind `ref` fields, loaded once per form. */
function useRefs(fields) {
  const [lists, setLists] = useState({});
  const paths = [...new Set(fields.flatMap((f) => [f.ref, ...(f.of ?? []).map((s) => s.ref)]).filter(Boolean))];
  useEffect(() => {
    let live = true;
    Promise.all(paths.map((path) => listAll(path).then((items) => [path, items], () => [path, []]))).then((pairs) => {
      if (live) setLists(Object.fromEntries(pairs));
    });
    return () => (live = false);
  }, [paths.join()]);
  return lists;
}

const label = (item) => (item.name ? `${item.name}${item.key ? ` (${item.key})` : ''}` : item.key ?? item.customerId ?? item.id);

/** Form values of an existing item (or the defaults of a new one). */
export function initialValues(fields, item) {
  const v = {};
  for (const f of fields) {
    const got = item ? getPath(item, f.k) : f.default;
    v[f.k] = got ?? (f.type === 'bool' ? false : f.type === 'refs' || f.type === 'multi' || f.type === 'rows' ? [] : '');
  }
  return v;
}

function convert(f, raw) {
  if (f.type === 'int' || f.type === 'number') return raw === '' ? undefined : Number(raw);
  if (f.type === 'rows') return raw.map((row) => toBody(f.of, row, 'create'));
  if (typeof raw === 'string' && raw === '') return undefined;
  return raw;
}

/** The request item: visible fields with a value (on edit: only those changed, and `null` for a cleared nullable one). */
export function toBody(fields, values, mode, initial) {
  const out = {};
  for (const f of fields) {
    if (f.when && !f.when(values)) continue;
    if (mode === 'edit' && f.createOnly) continue;
    let v = convert(f, values[f.k]);
    if (mode === 'edit') {
      if (JSON.stringify(values[f.k]) === JSON.stringify(initial?.[f.k])) continue;
      if (v === undefined && f.nullable) v = null;
    }
    if (v !== undefined) setPath(out, f.k, v);
  }
  return out;
}

function Input({ f, value, set, lists, idPrefix }) {
  const id = `${idPrefix}-${f.k}`;
  const common = { id, name: f.k, required: f.required, 'data-field': f.k };
  switch (f.type) {
    case 'textarea':
      return html`<textarea ...${common} maxlength=${f.max ?? 1000} value=${value} onInput=${(e) => set(e.target.value)} />`;
    case 'int':
    case 'number':
      return html`<input ...${common} type="number" step=${f.type === 'int' ? 1 : 'any'} min=${f.min} max=${f.max} value=${value}
        onInput=${(e) => set(e.target.value)} />`;
    case 'bool':
      return html`<input ...${common} type="checkbox" checked=${value} onChange=${(e) => set(e.target.checked)} />`;
    case 'date':
    case 'time':
      return html`<input ...${common} type=${f.type} value=${value} onInput=${(e) => set(e.target.value)} />`;
    case 'select':
      return html`<select ...${common} value=${value} onChange=${(e) => set(e.target.value)}>
        ${!f.required && html`<option value="">—</option>`}
        ${f.options.map((o) => html`<option value=${o}>${o}</option>`)}
      </select>`;
    case 'ref':
      return html`<select ...${common} value=${value} onChange=${(e) => set(e.target.value)}>
        <option value="">—</option>
        ${(lists[f.ref] ?? []).map((item) => html`<option value=${item.id}>${label(item)}</option>`)}
      </select>`;
    case 'refs':
    case 'multi': {
      const choices = f.type === 'refs' ? (lists[f.ref] ?? []).filter((i) => !f.exclude?.(i)).map((i) => [i.id, label(i)]) : f.options.map((o) => [o, o]);
      const toggle = (c, on) => set(on ? [...value, c] : value.filter((x) => x !== c));
      return html`<div class="choices" id=${id} data-field=${f.k}>
        ${choices.length === 0 && html`<span class="muted">none to choose from</span>`}
        ${choices.map(([c, text]) => html`<label class="choice"><input type="checkbox" value=${c} checked=${value.includes(c)}
          onChange=${(e) => toggle(c, e.target.checked)} /> ${text}</label>`)}
      </div>`;
    }
    case 'rows':
      return html`<div class="rows" id=${id} data-field=${f.k}>
        ${value.map((row, i) => html`<div class="row">
          ${f.of.map((sub) => html`<label>${sub.label}
            <${Input} f=${sub} value=${row[sub.k] ?? ''} lists=${lists} idPrefix=${`${id}-${i}`}
              set=${(v) => set(value.map((r, j) => (j === i ? { ...r, [sub.k]: v } : r)))} /></label>`)}
          <button type="button" class="link" onClick=${() => set(value.filter((_, j) => j !== i))}>remove</button>
        </div>`)}
        <button type="button" class="link" onClick=${() => set([...value, initialValues(f.of, null)])}>add</button>
      </div>`;
    default:
      return html`<input ...${common} type="text" maxlength=${f.max ?? 255} pattern=${f.pattern} value=${value}
        onInput=${(e) => set(e.target.value)} />`;
  }
}

/**
 * `submit(body)` saves and resolves, or rejects with the API's message, shown
 * next to the form. The browser checks what it can first (required, ranges,
 * key pattern) with the API's own limits.
 */
export function Form({ fields, item, mode, submit, onDone, title, submitLabel = 'Save', idPrefix = 'f' }) {
  const [values, setValues] = useState(() => initialValues(fields, item));
  const [initial] = useState(values);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const lists = useRefs(fields);
  const visible = fields.filter((f) => (!f.when || f.when(values)) && !(mode === 'edit' && f.createOnly));
  const onSubmit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const out = await submit(toBody(fields, values, mode, initial));
      onDone?.(out);
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="form" onSubmit=${onSubmit} data-form=${idPrefix}>
    ${title && html`<h3>${title}</h3>`}
    ${visible.map((f) => html`<div class="field">
      <label for=${`${idPrefix}-${f.k}`}>${f.label}${f.required ? ' *' : ''}</label>
      <${Input} f=${f} value=${values[f.k]} lists=${lists} idPrefix=${idPrefix} set=${(v) => setValues((old) => ({ ...old, [f.k]: v }))} />
      ${f.help && html`<small class="muted">${f.help}</small>`}
    </div>`)}
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <div class="actions"><button type="submit" disabled=${busy}>${submitLabel}</button></div>
  </form>`;
}
