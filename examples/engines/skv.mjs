// A writer of skinref's vertex dumps (.skv version 2, docs/formats.md "Vertex dumps (.skv)") for the Node.js
// engine adapters, the counterpart of the Python module's write_skv (python/skinref/skv.py).
//
// Contract:
// - encodeSkv(primitives, record, precision) returns the file's bytes: the 32-byte header, the record as
//   compact UTF-8 JSON (its "precision" and "layout" set here), then per primitive its 32-byte header and its
//   positions, normals and tangents (xyz-interleaved; tangents xyzw), little-endian, as float32 ("f32") or
//   float64 ("f64").
// - A primitive is {node, mesh, primitive, skinned (default true), positions, normals?, tangents?}, the
//   attributes flat arrays (3 or 4 numbers per vertex). Every count is checked, and every value must be finite
//   unless `options.keepNonFinite` (an adapter writing what its engine computed, NaN included, for skinref to
//   judge as bad output): a bad primitive throws an Error naming it and what was expected, and nothing is
//   written.
// - writeSkv(path, ...) writes the bytes to a temporary file beside `path`, then renames it: no partial file.

import { renameSync, unlinkSync, writeFileSync } from 'node:fs';

const MAGIC = 'SKINREFV';
const MAX_RECORD_BYTES = 1 << 20;
const SKINNED = 1, NORMALS = 2, TANGENTS = 4;

function checkedInt32(primitive, key, index) {
  const value = primitive[key];
  if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff)
    throw new Error(`primitive ${index}: "${key}" must be a 32-bit integer, got ${value}`);
  return value;
}

// The attribute's values as a flat array of `width` per vertex, or null when absent.
function checkedAttribute(primitive, key, width, index, count, keepNonFinite) {
  const values = primitive[key];
  if (values === undefined || values === null) return null;
  if (values.length % width !== 0)
    throw new Error(`primitive ${index}: "${key}" must hold ${width} numbers per vertex, got ${values.length}`);
  if (count !== null && values.length / width !== count)
    throw new Error(`primitive ${index}: "${key}" has ${values.length / width} vertices, positions ${count}`);
  for (let i = 0; i < values.length && !keepNonFinite; ++i)
    if (!Number.isFinite(values[i]))
      throw new Error(`primitive ${index}: "${key}" value ${i} (vertex ${Math.floor(i / width)}) is ${values[i]}`);
  return values;
}

export function encodeSkv(primitives, record = null, precision = 'f64', options = {}) {
  const keep = options.keepNonFinite === true;
  if (precision !== 'f32' && precision !== 'f64') throw new Error(`precision must be "f32" or "f64", got ${precision}`);
  const size = precision === 'f32' ? 4 : 8;
  let recordBytes = Buffer.alloc(0);
  if (record !== null) {
    if (record.precision !== undefined && record.precision !== precision)
      throw new Error(`the record's "precision" ${record.precision} contradicts the file's ${precision}`);
    recordBytes = Buffer.from(JSON.stringify({ ...record, precision, layout: 'xyz-interleaved' }), 'utf8');
    if (recordBytes.length > MAX_RECORD_BYTES)
      throw new Error(`record: ${recordBytes.length} bytes, more than ${MAX_RECORD_BYTES}`);
  }
  const parts = [];
  const header = Buffer.alloc(32);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(2, 8);
  header.writeUInt32LE(size, 12);
  header.writeUInt32LE(primitives.length, 16);
  header.writeUInt32LE(record !== null ? 1 : 0, 20);
  header.writeBigUInt64LE(BigInt(recordBytes.length), 24);
  parts.push(header, recordBytes);
  primitives.forEach((primitive, index) => {
    const ids = ['node', 'mesh', 'primitive'].map((key) => checkedInt32(primitive, key, index));
    const positions = checkedAttribute(primitive, 'positions', 3, index, null, keep);
    if (positions === null) throw new Error(`primitive ${index}: positions are required`);
    const count = positions.length / 3;
    const normals = checkedAttribute(primitive, 'normals', 3, index, count, keep);
    const tangents = checkedAttribute(primitive, 'tangents', 4, index, count, keep);
    const bits = (primitive.skinned === false ? 0 : SKINNED) | (normals ? NORMALS : 0) | (tangents ? TANGENTS : 0);
    const head = Buffer.alloc(32);
    ids.forEach((value, i) => head.writeInt32LE(value, 4 * i));
    head.writeUInt32LE(bits, 12);
    head.writeBigUInt64LE(BigInt(count), 16);
    parts.push(head);
    for (const values of [positions, normals, tangents]) {
      if (values === null) continue;
      const block = Buffer.alloc(values.length * size);
      values.forEach((v, i) => (size === 4 ? block.writeFloatLE(v, 4 * i) : block.writeDoubleLE(v, 8 * i)));
      parts.push(block);
    }
  });
  return Buffer.concat(parts);
}

export function writeSkv(path, primitives, record = null, precision = 'f64', options = {}) {
  const bytes = encodeSkv(primitives, record, precision, options);
  const temporary = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  } catch (error) {
    try { unlinkSync(temporary); } catch { /* it was never written */ }
    throw error;
  }
}
