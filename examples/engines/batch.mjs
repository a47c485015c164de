// The batch protocol's side of a Node.js engine adapter (docs/conformance.md, "The adapter contract"): read the
// queries file, play each query in the engine, write its dump; and the glTF as a Node.js engine can load it.
//
// Contract:
// - runBatch(argv, writer, play): argv is the adapter's arguments (the queries file alone); `play(query)` returns
//   (or resolves to) the drawn primitives of skv.mjs. Each dump is written with a record naming `writer`, the
//   model, animation, time and method, as float32, keeping any NaN the engine computed for skinref to judge. A
//   query that throws is reported on stderr and the others go on. Resolves to the exit status: 0, 1 when a
//   query failed, 2 for bad usage or a file that is not a queries file.
// - embeddedGltf(modelPath): the .gltf's JSON with every buffer given by a relative URI read and embedded as a
//   data: URI (Node.js's fetch reads no file: URL), and without textures (images, textures and the materials'
//   references to them), which Node.js cannot decode and skinning does not use.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeSkv } from './skv.mjs';

export function embeddedGltf(modelPath) {
  const gltf = JSON.parse(readFileSync(modelPath, 'utf8'));
  for (const buffer of gltf.buffers ?? []) {
    if (buffer.uri === undefined || buffer.uri.startsWith('data:')) continue;
    const bytes = readFileSync(path.join(path.dirname(modelPath), decodeURIComponent(buffer.uri)));
    buffer.uri = `data:application/octet-stream;base64,${bytes.toString('base64')}`;
  }
  withoutTextures(gltf);
  return gltf;
}

// Textures need a browser to decode (three.js's loader reaches for `self`), and skinning does not read them: the
// materials keep their factors, every texture reference goes, and so do the images and textures.
function withoutTextures(gltf) {
  const isTextureInfo = (key, value) => key.endsWith('Texture') && value && typeof value === 'object' && 'index' in value;
  const strip = (object) => {
    if (!object || typeof object !== 'object') return;
    for (const [key, value] of Object.entries(object)) {
      if (isTextureInfo(key, value)) delete object[key];
      else strip(value);
    }
  };
  for (const material of gltf.materials ?? []) strip(material);
  delete gltf.images;
  delete gltf.textures;
  delete gltf.samplers;
}

export async function runBatch(argv, writer, play) {
  if (argv.length !== 1) {
    process.stderr.write('usage: node adapter.mjs QUERIES.json\n');
    return 2;
  }
  const document = JSON.parse(readFileSync(argv[0], 'utf8'));
  if (document.format !== 'skinref-conformance-queries' || document.version !== 1) {
    process.stderr.write(`${argv[0]}: not a skinref-conformance-queries file, version 1\n`);
    return 2;
  }
  let failed = 0;
  for (const query of document.queries) {
    try {
      const record = { writer, model: path.basename(query.model), animation: String(query.animation),
                       time: query.time, method: 'lbs' };
      writeSkv(query.out, await play(query), record, 'f32', { keepNonFinite: true });
    } catch (error) {
      process.stderr.write(`${query.case} at t = ${query.time}: ${error.stack ?? error}\n`);
      ++failed;
    }
  }
  return failed ? 1 : 0;
}
