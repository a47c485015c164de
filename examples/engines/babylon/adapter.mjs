// Babylon.js under skinref's conformance suite: a batch adapter (docs/conformance.md, "The adapter contract";
// docs/engines.md).
//
//   skinref conformance run --engine-name Babylon.js --engine-version 9.28.0 --out out/babylon \
//       --batch 'node examples/engines/babylon/adapter.mjs {queries}'
//
// For each query it loads the case into a NullEngine scene with Babylon's glTF loader (scene.useRightHandedSystem,
// so that glTF's axes are kept; without it x is mirrored), plays the animation group once to the time, renders a
// frame (which updates the world matrices and the skeletons), and writes what Babylon draws, in world space, as
// a .skv dump (../skv.mjs): AbstractMesh.getPositionData(true, true) and getNormalsData(true, true), Babylon's
// own CPU evaluation of its morph targets and skeleton (up to 8 influences, as its shaders), then the mesh's
// world matrix (normals by its inverse transpose, normalized, as the PBR vertex shader under non-uniform
// scaling).
//
// Each drawn mesh is matched to its glTF mesh and primitive by the pointer Babylon's loader records
// (_internalMetadata.gltf.pointers, "/meshes/M/primitives/P"), and to its node by the glTF's nodes that draw
// that mesh, in the order skinref lists primitives (depth first from the scene's roots). The queries are read
// and the dumps written by ../batch.mjs.

import { readFileSync } from 'node:fs';
import { FreeCamera, Logger, Matrix, NullEngine, Scene, SceneLoader, Vector3 } from '@babylonjs/core';
import '@babylonjs/loaders/glTF/index.js';
import { embeddedGltf, runBatch } from '../batch.mjs';

Logger.LogLevels = Logger.ErrorLogLevel;

// Every (node, mesh, primitive) the scene draws, in skinref's order: depth first from the roots.
function drawnPrimitives(gltf) {
  const scene = gltf.scenes?.[gltf.scene ?? 0];
  const roots = scene ? scene.nodes : gltf.nodes.map((_, i) => i).filter((i) => !gltf.nodes.some((n) => n.children?.includes(i)));
  const order = [];
  const visit = (node) => {
    const def = gltf.nodes[node];
    if (def.mesh !== undefined)
      gltf.meshes[def.mesh].primitives.forEach((_, primitive) => order.push({ node, mesh: def.mesh, primitive }));
    for (const child of def.children ?? []) visit(child);
  };
  roots.forEach(visit);
  return order;
}

function meshPointer(babylonMesh) {
  for (const pointer of babylonMesh._internalMetadata?.gltf?.pointers ?? []) {
    const match = /^\/meshes\/(\d+)\/primitives\/(\d+)$/.exec(pointer);
    if (match) return { mesh: Number(match[1]), primitive: Number(match[2]) };
  }
  return null;
}

function worldVertices(babylonMesh) {
  const world = babylonMesh.getWorldMatrix();
  const normalMatrix = Matrix.Transpose(Matrix.Invert(world));
  const local = babylonMesh.getPositionData(true, true);
  const positions = [];
  for (let i = 0; i < local.length; i += 3) {
    const p = Vector3.TransformCoordinates(new Vector3(local[i], local[i + 1], local[i + 2]), world);
    positions.push(p.x, p.y, p.z);
  }
  const localNormals = babylonMesh.getNormalsData(true, true);
  let normals = null;
  if (localNormals) {
    normals = [];
    for (let i = 0; i < localNormals.length; i += 3) {
      const n = Vector3.TransformNormal(new Vector3(localNormals[i], localNormals[i + 1], localNormals[i + 2]), normalMatrix);
      n.normalize();
      normals.push(n.x, n.y, n.z);
    }
  }
  return { positions, normals };
}

async function play(modelPath, animation, time) {
  const gltf = embeddedGltf(modelPath);
  const uri = `data:model/gltf+json;base64,${Buffer.from(JSON.stringify(gltf)).toString('base64')}`;
  const engine = new NullEngine();
  const scene = new Scene(engine);
  scene.useRightHandedSystem = true;
  new FreeCamera('camera', new Vector3(0, 0, 10), scene);
  try {
    const result = await SceneLoader.ImportMeshAsync('', '', uri, scene, null, '.gltf');
    for (const group of result.animationGroups) group.stop();
    const group = result.animationGroups[animation];
    if (group) {
      const fps = group.targetedAnimations[0]?.animation.framePerSecond ?? 60;
      group.start(false, 1, group.from, group.to);
      group.goToFrame(time * fps);
      group.pause();
    }
    for (const mesh of result.meshes) mesh.alwaysSelectAsActiveMesh = true;
    scene.render();
    const byPointer = new Map();
    for (const mesh of result.meshes) {
      const pointer = meshPointer(mesh);
      if (pointer) byPointer.set(`${pointer.mesh}/${pointer.primitive}`, [...(byPointer.get(`${pointer.mesh}/${pointer.primitive}`) ?? []), mesh]);
    }
    return drawnPrimitives(gltf).map(({ node, mesh, primitive }) => {
      const candidates = byPointer.get(`${mesh}/${primitive}`) ?? [];
      if (candidates.length === 0) throw new Error(`no Babylon mesh draws node ${node}'s mesh ${mesh} primitive ${primitive}`);
      const babylonMesh = candidates.shift();  // the nodes that share a mesh, in the same order as Babylon's
      return { node, mesh, primitive, skinned: gltf.nodes[node].skin !== undefined, ...worldVertices(babylonMesh) };
    });
  } finally {
    scene.dispose();
    engine.dispose();
  }
}

const version = JSON.parse(readFileSync(new URL('../node_modules/@babylonjs/core/package.json', import.meta.url))).version;
process.exitCode = await runBatch(process.argv.slice(2), `Babylon.js ${version}`,
                                  (query) => play(query.model, query.animation, query.time));
