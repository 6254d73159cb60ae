// Validates received messages against protocol/protocol.schema.json, the JSON
// Schema generated from the Go package protocol (`go generate ./protocol`).
// It implements the keywords the generator writes: $ref into $defs, type,
// properties, required, additionalProperties, items, prefixItems,
// minItems, maxItems, enum and anyOf.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const schemaPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'protocol', 'protocol.schema.json');
export const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function check(s, v, at, errs) {
  if (s.$ref) {
    const name = s.$ref.replace('#/$defs/', '');
    const d = schema.$defs[name];
    if (!d) return errs.push(`${at}: unknown $ref ${s.$ref}`);
    return check(d, v, at, errs);
  }
  if (s.anyOf) {
    const branches = s.anyOf.map((b) => {
      const e = [];
      check(b, v, at, e);
      return e;
    });
    if (!branches.some((e) => e.length === 0)) {
      errs.push(`${at}: matches none of ${s.anyOf.length} shapes (${branches.map((e) => e[0]).join(' | ')})`);
    }
    return;
  }
  if (s.enum && !s.enum.includes(v)) errs.push(`${at}: ${JSON.stringify(v)} is not one of ${JSON.stringify(s.enum)}`);
  if (s.type) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    const t = typeOf(v);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) {
      return errs.push(`${at}: ${t}, want ${types.join('|')}`);
    }
  }
  if (typeOf(v) === 'object') {
    for (const r of s.required ?? []) if (!Object.hasOwn(v, r)) errs.push(`${at}: missing ${r}`);
    for (const [k, x] of Object.entries(v)) {
      if (s.properties && Object.hasOwn(s.properties, k)) check(s.properties[k], x, `${at}.${k}`, errs);
      else if (s.additionalProperties === false) errs.push(`${at}: unknown member ${k}`);
      else if (typeof s.additionalProperties === 'object') check(s.additionalProperties, x, `${at}.${k}`, errs);
    }
  }
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) errs.push(`${at}: ${v.length} items, want at least ${s.minItems}`);
    if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(`${at}: ${v.length} items, want at most ${s.maxItems}`);
    v.forEach((x, i) => {
      const p = s.prefixItems?.[i] ?? s.items;
      if (p) check(p, x, `${at}[${i}]`, errs);
    });
  }
}

/** The ways `value` does not fit the generated type `name` (empty when it fits). */
export function validate(name, value) {
  const errs = [];
  if (!schema.$defs[name]) return [`no type ${name} in the schema`];
  check({ $ref: `#/$defs/${name}` }, value, name, errs);
  return errs;
}
