// PlayCanvas under skinref's conformance suite: a batch adapter (docs/conformance.md, "The adapter contract";
// docs/engines.md).
//
//   skinref conformance run --engine-name PlayCanvas --engine-version 2.23.3 --out out/playcanvas \
//       --batch 'node examples/engines/playcanvas/adapter.mjs {queries}'
//
// For each query it loads the case as a container asset of a Node.js PlayCanvas app (AppBase on a
// NullGraphicsDevice; the .gltf handed over as the asset's `file.contents`, its buffers as data: URIs, so no
// fetch or XHR), instantiates it with instantiateRenderEntity(), plays the case's animation with an
// AnimComponent once and held at its end (loop false: glTF defines no looping, and PlayCanvas's default,
// looping, is the application's choice) in one app.update(t) frame, and renders that frame with app.render()
// (every mesh instance unculled), which runs PlayCanvas's own skin step: each SkinInstance's bone matrices,
// inv(world(mesh node)) * world(bone) * inverseBindPose, into its matrixPalette, the bone texture the shader
// reads (src/scene/renderer/renderer.js:337-357, src/scene/skin-instance.js:73-108).
//
// PlayCanvas morphs and skins on the GPU only, so the dump is its vertex shader mirrored on the CPU, from its
// own data, in world space (../skv.mjs):
// - the vertex buffer as PlayCanvas uploaded it (POSITION, NORMAL, BLENDINDICES, BLENDWEIGHT), each element
//   read as the GPU reads an attribute of its type and normalize flag;
// - morph targets as MorphInstance.update() and the morph shader blend them (src/scene/morph-instance.js:135-150;
//   chunk internal/morph/frag/morph.js:15-19): the targets whose weight is above 1e-5, their deltas
//   as Morph stored them in its target textures (half floats unless the asset asks for morphPreferHighPrecision,
//   src/scene/morph.js:119-145), summed in float32 into the morph render target (RGBA16F, morph.js:27-30),
//   which getLocalPosition() and getLocalNormal() add to the vertex (chunks common/vert/transformCore.js:44-55,
//   normalCore.js:10-19);
// - skinning as skinVS does it (chunk common/vert/skin.js:12-33): the palette rows of the four BLENDINDICES
//   blended by BLENDWEIGHT, the weights' sum in the w of the last row; then transformCore.js:34-35
//   getModelMatrix() = matrix_model * skinMatrix (matrix_model the mesh node's world matrix, renderer.js:641-643)
//   and transform.js:19 posW = modelMatrix * vec4(localPos, 1). The dump is the point the rasterizer places,
//   posW.xyz / posW.w (gl_Position = matrix_viewProjection * posW, transform.js:40): w is the weights' sum;
// - normals as lit/vert/normal.js:4-6 and normalCore.js:24-31 compute them: normalize(N * localNormal), N the
//   upper 3x3 of that model matrix for a skinned mesh, matrix_normal (GraphNode.normalMatrix, the inverse
//   transpose of the node's world matrix) otherwise.
// Chunk paths are under src/scene/shader-lib/glsl/chunks/ (WebGPU's WGSL chunks compute the same), and src/ is
// node_modules/playcanvas/build/playcanvas/src/, the module that `import 'playcanvas'` loads.
//
// Each drawn mesh instance is matched to its glTF node by walking the instantiated entities beside the parsed
// node graph they were cloned from, and to its primitive by its Mesh's place in that glTF mesh's meshes. The
// queries are read and the dumps written by ../batch.mjs.

import * as pc from 'playcanvas';
import { embeddedGltf, runBatch } from '../batch.mjs';

function createApp() {
  const options = new pc.AppOptions();
  // A stand-in canvas: 1.x's device and app ask it for its size (getBoundingClientRect); 2.x needs no more.
  const canvas = { width: 1, height: 1, getBoundingClientRect: () => ({ left: 0, top: 0, width: 1, height: 1 }) };
  options.graphicsDevice = new pc.NullGraphicsDevice(canvas);
  options.componentSystems = [pc.RenderComponentSystem, pc.AnimComponentSystem, pc.CameraComponentSystem];
  options.resourceHandlers = [pc.ContainerHandler];
  const app = new pc.AppBase(canvas);
  app.init(options);
  const camera = new pc.Entity('camera');  // app.render() draws through a camera
  camera.addComponent('camera');
  app.root.addChild(camera);
  return app;
}

const app = createApp();

// The case as a loaded container asset: its .gltf with the buffers embedded and no textures (../batch.mjs).
function loadContainer(modelPath) {
  const contents = Buffer.from(JSON.stringify(embeddedGltf(modelPath)));
  const asset = new pc.Asset('case.gltf', 'container', { url: 'case.gltf', filename: 'case.gltf', contents });
  return new Promise((resolve, reject) => {
    asset.once('load', () => resolve(asset));
    asset.once('error', (error) => reject(new Error(`PlayCanvas did not load the case: ${error}`)));
    app.assets.add(asset);
    app.assets.load(asset);
  });
}

// glTF node index of each instantiated entity: the entities are clones of the parsed graph (data.scenes),
// child for child (GlbContainerResource.instantiateRenderEntity, cloneHierarchy).
function nodeIndices(resource, root) {
  const index = new Map(resource.data.nodes.map((node, i) => [node, i]));
  const result = new Map();
  const walk = (source, clone) => {
    if (index.has(source)) result.set(clone, index.get(source));
    source.children.forEach((child, i) => walk(child, clone.children[i]));
  };
  const scenes = resource.data.scenes;
  if (scenes.length === 1) walk(scenes[0], root);
  else scenes.forEach((scene, i) => walk(scene, root.children[i]));
  return result;
}

function play(root, resource, animation, time) {
  for (const render of root.findComponents('render'))
    for (const meshInstance of render.meshInstances) meshInstance.cull = false;  // all in the frame's skin upload
  const clip = resource.animations[animation];
  if (clip) {
    root.addComponent('anim', { activate: true });
    root.anim.assignAnimation('clip', clip.resource, undefined, 1, false);  // one state, loop false
  }
  app.update(time);  // one frame of `time` seconds: the clip goes from 0 to min(time, duration)
  app.render();  // the frame's skin palettes and morph weights (Renderer.beginFrame, gpuUpdate)
}

// One attribute of the vertex buffer, as the vertex shader reads it: the element's type, normalized or not
// (WebGL's rule for signed normalized: max(c / (2^(b-1) - 1), -1)), `numComponents` per vertex.
function readAttribute(vertexBuffer, semantic) {
  const format = vertexBuffer.getFormat();
  const element = format.elements.find((e) => e.name === semantic);
  if (!element) return null;
  const view = new DataView(vertexBuffer.lock());
  const { dataType, numComponents, normalize, offset, stride } = element;
  const size = [1, 1, 2, 2, 4, 4, 4, 2][dataType];
  const read = [
    (o) => view.getInt8(o), (o) => view.getUint8(o), (o) => view.getInt16(o, true), (o) => view.getUint16(o, true),
    (o) => view.getInt32(o, true), (o) => view.getUint32(o, true), (o) => view.getFloat32(o, true),
    (o) => halfToFloat(view.getUint16(o, true))][dataType];
  const scale = normalize ? [127, 255, 32767, 65535, 2147483647, 4294967295, 1, 1][dataType] : 1;
  const signed = dataType === pc.TYPE_INT8 || dataType === pc.TYPE_INT16 || dataType === pc.TYPE_INT32;
  const values = new Float64Array(vertexBuffer.numVertices * numComponents);
  for (let v = 0; v < vertexBuffer.numVertices; ++v)
    for (let c = 0; c < numComponents; ++c) {
      const raw = read(offset + v * stride + c * size);
      values[v * numComponents + c] = normalize && signed ? Math.max(raw / scale, -1) : raw / scale;
    }
  return { values, components: numComponents };
}

function halfToFloat(bits) {
  const sign = bits & 0x8000 ? -1 : 1, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

// float32 to half float, rounded to nearest even, as a GPU writes a float into an RGBA16F render target.
function roundToHalf(value) {
  if (!Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.abs(value);
  if (magnitude >= 65520) return Math.sign(value) * Infinity;
  const exponent = Math.max(Math.floor(Math.log2(magnitude)), -14);
  const step = 2 ** (exponent - 10);
  let quotient = magnitude / step;
  const floor = Math.floor(quotient), rest = quotient - floor;
  quotient = rest > 0.5 || (rest === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return Math.sign(value) * quotient * step;
}

// The morph render target's value per vertex (xyz), as MorphInstance.update() and morphPS make it, for
// positions (`positions` true) or normals; null when the mesh has no such morph.
function morphOffsets(meshInstance, positions) {
  const morphInstance = meshInstance.morphInstance;
  if (!morphInstance) return null;
  const morph = morphInstance.morph;
  const texture = positions ? morph.targetsTexturePositions : morph.targetsTextureNormals;
  if (!texture) return null;
  if (morph.intRenderFormat) throw new Error('the integer morph render target (RGBA16U) is not mirrored');
  // The texture array's layer k holds the k-th target that has such deltas (morph.js:125-128) and target i
  // reads layer i (morphIndex): the same while every target has them.
  const layers = texture._levels[0];
  const half = texture.format === pc.PIXELFORMAT_RGBA16F;
  const toHalfTarget = morph._renderTextureFormat === pc.PIXELFORMAT_RGBA16F;
  const active = [];
  morph.targets.forEach((_, i) => {
    const weight = morphInstance.getWeight(i);
    if (Math.abs(weight) > 1e-5) active.push({ layer: layers[i], weight: Math.fround(weight) });
  });
  const ids = new Uint32Array(morph.vertexBufferIds.lock());
  const result = new Float64Array(ids.length * 3);
  for (let v = 0; v < ids.length; ++v)
    for (let c = 0; c < 3; ++c) {
      let sum = 0;  // highp float in morphPS
      for (const { layer, weight } of active) {
        const stored = layer ? layer[ids[v] * 4 + c] : 0;  // a layer past the stored ones reads as zero
        sum = Math.fround(sum + Math.fround(weight * (half ? halfToFloat(stored) : stored)));
      }
      result[3 * v + c] = toHalfTarget ? roundToHalf(sum) : sum;
    }
  return result;
}

// skinVS's getSkinMatrix(): the rows v1, v2, v3 of the blended palette, and `one`, the weights' sum.
function skinMatrix(palette, indices, weights, v) {
  const rows = new Float64Array(12);
  let one = 0;
  for (let k = 0; k < 4; ++k) {
    const weight = weights[4 * v + k];
    const bone = Math.trunc(indices[4 * v + k] + 0.5) * 12;
    for (let e = 0; e < 12; ++e) rows[e] += palette[bone + e] * weight;
    one += weight;
  }
  return { rows, one };
}

// model (a Mat4's column-major data) times the skin matrix, as a row-major 4x4.
function modelTimesSkin(model, { rows, one }) {
  const skin = [rows.slice(0, 4), rows.slice(4, 8), rows.slice(8, 12), [0, 0, 0, one]];
  const result = [];
  for (let r = 0; r < 4; ++r)
    for (let c = 0; c < 4; ++c) {
      let sum = 0;
      for (let k = 0; k < 4; ++k) sum += model[4 * k + r] * skin[k][c];
      result.push(sum);
    }
  return result;
}

function rowMajor(model) {
  const result = [];
  for (let r = 0; r < 4; ++r) for (let c = 0; c < 4; ++c) result.push(model[4 * c + r]);
  return result;
}

// Vertex v of an attribute plus its morph offset (getLocalPosition, getLocalNormal).
function localVector(attribute, offsets, v) {
  return [0, 1, 2].map((c) => attribute.values[attribute.components * v + c] + (offsets ? offsets[3 * v + c] : 0));
}

// The drawn point and the shaded normal of a vertex, given its model matrix m (row-major 4x4). posW's w is 1, or
// the weights' sum for a skinned mesh (skin.js:26-31): posW.xyz / w is where the rasterizer puts the vertex.
function drawnVertex(m, normalMatrix, skinned, p, n) {
  const row = (r, x, w) => m[4 * r] * x[0] + m[4 * r + 1] * x[1] + m[4 * r + 2] * x[2] + m[4 * r + 3] * w;
  const w = row(3, p, 1);
  const position = [0, 1, 2].map((r) => row(r, p, 1) / w);
  if (!n) return { position, normal: null };
  const column = (r) => normalMatrix[r] * n[0] + normalMatrix[3 + r] * n[1] + normalMatrix[6 + r] * n[2];
  const direction = [0, 1, 2].map((r) => (skinned ? row(r, n, 0) : column(r)));
  const length = Math.hypot(...direction);
  return { position, normal: direction.map((x) => x / length) };
}

function drawnVertices(meshInstance) {
  const vertexBuffer = meshInstance.mesh.vertexBuffer;
  const position = readAttribute(vertexBuffer, pc.SEMANTIC_POSITION);
  const normal = readAttribute(vertexBuffer, pc.SEMANTIC_NORMAL);
  const morphPositions = morphOffsets(meshInstance, true), morphNormals = morphOffsets(meshInstance, false);
  const skinInstance = meshInstance.skinInstance;
  const indices = skinInstance && readAttribute(vertexBuffer, pc.SEMANTIC_BLENDINDICES).values;
  const weights = skinInstance && readAttribute(vertexBuffer, pc.SEMANTIC_BLENDWEIGHT).values;
  const model = meshInstance.node.getWorldTransform().data;  // the uniform matrix_model, column-major float32
  const normalMatrix = meshInstance.node.normalMatrix.data;  // matrix_normal, a column-major float32 3x3
  const count = vertexBuffer.numVertices;
  const positions = [], normals = normal ? [] : null;
  for (let v = 0; v < count; ++v) {
    const m = skinInstance ? modelTimesSkin(model, skinMatrix(skinInstance.matrixPalette, indices, weights, v))
                           : rowMajor(model);
    const drawn = drawnVertex(m, normalMatrix, !!skinInstance, localVector(position, morphPositions, v),
                              normal && localVector(normal, morphNormals, v));
    positions.push(...drawn.position);
    if (normals) normals.push(...drawn.normal);
  }
  return { positions, normals };
}

// Every drawn mesh instance, depth first from the roots, as a .skv primitive.
function drawnPrimitives(resource, root) {
  const nodeOf = nodeIndices(resource, root);
  const gltf = resource.data.gltf;
  const primitives = [];
  const visit = (entity) => {
    const node = nodeOf.get(entity);
    if (entity.render && node !== undefined) {
      const mesh = gltf.nodes[node].mesh;
      const meshes = resource.data.renders[mesh].meshes;
      for (const meshInstance of entity.render.meshInstances)
        primitives.push({ node, mesh, primitive: meshes.indexOf(meshInstance.mesh),
                          skinned: !!meshInstance.skinInstance, ...drawnVertices(meshInstance) });
    }
    entity.children.forEach(visit);
  };
  visit(root);
  return primitives;
}

process.exitCode = await runBatch(process.argv.slice(2), `PlayCanvas ${pc.version}`, async (query) => {
  const asset = await loadContainer(query.model);  // a fresh asset and entity per query: nothing carries over
  const root = asset.resource.instantiateRenderEntity();
  try {
    app.root.addChild(root);
    play(root, asset.resource, query.animation, query.time);
    return drawnPrimitives(asset.resource, root);
  } finally {
    root.destroy();
    app.assets.remove(asset);
    asset.unload();
  }
});
