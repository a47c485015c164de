// three.js under skinref's conformance suite: a batch adapter (docs/conformance.md, "The adapter contract";
// docs/engines.md).
//
//   skinref conformance run --engine-name three.js --engine-version 0.187.0 --out out/three \
//       --batch 'node examples/engines/three/adapter.mjs {queries}'
//
// For each query it loads the case with three's GLTFLoader, plays the animation with an AnimationMixer, and
// writes what three's renderer would draw, in world space, as a .skv dump (../skv.mjs):
// - positions: SkinnedMesh.getVertexPosition() (morph targets, then SkinnedMesh.applyBoneTransform(), the CPU
//   copy of skinning_vertex.glsl), then the mesh's matrixWorld, as the vertex shader's modelMatrix;
// - normals: as morphnormal_vertex.glsl and skinnormal_vertex.glsl compute them (the morph deltas added, then
//   the upper 3x3 of bindMatrixInverse * sum(w_i * boneMatrix_i) * bindMatrix), then the inverse transpose of
//   matrixWorld, normalized as the fragment shader does.
// The clip plays once and holds its end (LoopOnce, clampWhenFinished): glTF defines no looping, and three's
// default, LoopRepeat, is a choice of the application, not of the engine's glTF support.
//
// The buffers of a .gltf are handed to the loader as data: URIs (../batch.mjs), and ProgressEvent, which
// three's FileLoader uses, is given a stand-in. The queries are read and the dumps written by ../batch.mjs.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { embeddedGltf, runBatch } from '../batch.mjs';

// three's FileLoader reports progress with the browser's ProgressEvent, which Node.js lacks.
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    Object.assign(this, init);
  }
};

function loadModel(modelPath) {
  const loader = new GLTFLoader();
  return new Promise((resolve, reject) => loader.parse(JSON.stringify(embeddedGltf(modelPath)), '', resolve, reject));
}

// The glTF node, mesh and primitive a drawn three.js mesh comes from (GLTFLoader's parser.associations).
function gltfIndices(parser, object) {
  const own = parser.associations.get(object) ?? {};
  if (own.nodes !== undefined) return { node: own.nodes, mesh: own.meshes, primitive: own.primitives ?? 0 };
  const parent = parser.associations.get(object.parent) ?? {};  // a primitive of a multi-primitive mesh
  return { node: parent.nodes, mesh: own.meshes, primitive: own.primitives ?? 0 };
}

const _position = new THREE.Vector3();
const _normal = new THREE.Vector3();
const _delta = new THREE.Vector3();
const _skin = new THREE.Matrix4();
const _bone = new THREE.Matrix4();
const _normalMatrix = new THREE.Matrix3();

// The skinning matrix of vertex `index` as skinnormal_vertex.glsl builds it.
function skinMatrix(mesh, index, target) {
  const indices = mesh.geometry.attributes.skinIndex, weights = mesh.geometry.attributes.skinWeight;
  const elements = new Array(16).fill(0);
  for (let i = 0; i < 4; ++i) {
    const weight = weights.getComponent(index, i);
    if (weight === 0) continue;
    const bone = indices.getComponent(index, i);
    _bone.multiplyMatrices(mesh.skeleton.bones[bone].matrixWorld, mesh.skeleton.boneInverses[bone]);
    for (let e = 0; e < 16; ++e) elements[e] += weight * _bone.elements[e];
  }
  target.fromArray(elements);
  return target.premultiply(mesh.bindMatrixInverse).multiply(mesh.bindMatrix);
}

function morphedNormal(mesh, index, target) {
  target.fromBufferAttribute(mesh.geometry.attributes.normal, index);
  const deltas = mesh.geometry.morphAttributes.normal, influences = mesh.morphTargetInfluences;
  if (deltas && influences)
    deltas.forEach((attribute, t) => {
      if (influences[t] !== 0) target.addScaledVector(_delta.fromBufferAttribute(attribute, index), influences[t]);
    });
  return target;
}

function drawnPrimitive(parser, mesh) {
  const count = mesh.geometry.attributes.position.count;
  const positions = new Array(3 * count);
  const normals = mesh.geometry.attributes.normal ? new Array(3 * count) : null;
  _normalMatrix.getNormalMatrix(mesh.matrixWorld);
  for (let v = 0; v < count; ++v) {
    mesh.getVertexPosition(v, _position).applyMatrix4(mesh.matrixWorld);
    positions.splice(3 * v, 3, _position.x, _position.y, _position.z);
    if (!normals) continue;
    morphedNormal(mesh, v, _normal);
    if (mesh.isSkinnedMesh) _normal.transformDirection(skinMatrix(mesh, v, _skin));  // upper 3x3; normalized below
    _normal.applyMatrix3(_normalMatrix).normalize();
    normals.splice(3 * v, 3, _normal.x, _normal.y, _normal.z);
  }
  const { node, mesh: meshIndex, primitive } = gltfIndices(parser, mesh);
  return { node, mesh: meshIndex, primitive, skinned: mesh.isSkinnedMesh === true, positions, normals };
}

function play(gltf, animation, time) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  if (gltf.animations.length > animation) {
    const action = mixer.clipAction(gltf.animations[animation]);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    mixer.setTime(time);
  }
  gltf.scene.updateMatrixWorld(true);
  const primitives = [];
  gltf.scene.traverse((object) => {
    if (object.isMesh && object.geometry.attributes.position) primitives.push(drawnPrimitive(gltf.parser, object));
  });
  mixer.stopAllAction();
  return primitives;
}

process.exitCode = await runBatch(process.argv.slice(2), `three.js ${THREE.REVISION}`, async (query) => {
  const gltf = await loadModel(query.model);  // a fresh scene per query: nothing carries over
  return play(gltf, query.animation, query.time);
});
