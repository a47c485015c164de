// The Node.js .skv writer (skv.mjs) against the format's layout (docs/formats.md): every header field at its
// offset, the values back as written, and the refusals. Run: node --test examples/engines/skv.test.mjs
// (ctest engines.skv_writer). That skinref itself reads what it writes is the engines' runs' part: every dump
// of examples/engines/three/adapter.mjs goes through skinref's reader.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { encodeSkv, writeSkv } from './skv.mjs';

const primitive = { node: 3, mesh: 1, primitive: 2, positions: [1, 2, 3, -4.5, 0.25, 1e-3], normals: [0, 0, 1, 0, 1, 0] };

test('the header, the record and the primitive sit where the format puts them', () => {
  const bytes = encodeSkv([primitive], { writer: 'test', time: 0.5 }, 'f32');
  assert.equal(bytes.toString('latin1', 0, 8), 'SKINREFV');
  assert.equal(bytes.readUInt32LE(8), 2);   // version
  assert.equal(bytes.readUInt32LE(12), 4);  // bytes per component
  assert.equal(bytes.readUInt32LE(16), 1);  // primitives
  assert.equal(bytes.readUInt32LE(20), 1);  // a record follows
  const recordLength = Number(bytes.readBigUInt64LE(24));
  const record = JSON.parse(bytes.toString('utf8', 32, 32 + recordLength));
  assert.deepEqual(record, { writer: 'test', time: 0.5, precision: 'f32', layout: 'xyz-interleaved' });
  const head = 32 + recordLength;
  assert.deepEqual([0, 4, 8].map((o) => bytes.readInt32LE(head + o)), [3, 1, 2]);
  assert.equal(bytes.readUInt32LE(head + 12), 1 | 2);  // skinned, normals
  assert.equal(Number(bytes.readBigUInt64LE(head + 16)), 2);
  const values = [];
  for (let i = 0; i < 12; ++i) values.push(bytes.readFloatLE(head + 32 + 4 * i));
  assert.deepEqual(values, [...primitive.positions, ...primitive.normals].map(Math.fround));
  assert.equal(bytes.length, head + 32 + 12 * 4);
});

test('f64 keeps every bit, and no record leaves the flag clear', () => {
  const bytes = encodeSkv([{ ...primitive, normals: undefined, skinned: false }], null, 'f64');
  assert.equal(bytes.readUInt32LE(12), 8);
  assert.equal(bytes.readUInt32LE(20), 0);
  assert.equal(Number(bytes.readBigUInt64LE(24)), 0);
  assert.equal(bytes.readUInt32LE(32 + 12), 0);  // neither skinned nor normals
  assert.equal(bytes.readDoubleLE(64 + 5 * 8), 1e-3);
});

test('bad primitives are refused, naming what is wrong', () => {
  assert.throws(() => encodeSkv([{ ...primitive, positions: [1, 2] }]), /primitive 0: "positions" must hold 3/);
  assert.throws(() => encodeSkv([{ ...primitive, normals: [0, 0, 1] }]), /"normals" has 1 vertices, positions 2/);
  assert.throws(() => encodeSkv([{ ...primitive, positions: [1, 2, NaN] }]), /value 2 \(vertex 0\) is NaN/);
  assert.throws(() => encodeSkv([{ ...primitive, node: 1.5 }]), /"node" must be a 32-bit integer/);
  assert.throws(() => encodeSkv([primitive], { precision: 'f64' }, 'f32'), /contradicts/);
  // An adapter may keep what its engine computed, for skinref to judge as bad output.
  const kept = encodeSkv([{ ...primitive, positions: [NaN, 2, 3, 4, 5, 6] }], null, 'f32', { keepNonFinite: true });
  assert.ok(Number.isNaN(kept.readFloatLE(64)));
});

test('writeSkv leaves the file whole or not at all', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'skv-'));
  try {
    const file = path.join(dir, 'a.skv');
    writeSkv(file, [primitive], null, 'f32');
    assert.deepEqual(readFileSync(file), encodeSkv([primitive], null, 'f32'));
    assert.throws(() => writeSkv(path.join(dir, 'b.skv'), [{ ...primitive, positions: [Infinity, 0, 0] }]));
    assert.deepEqual(readdirSync(dir), ['a.skv']);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
