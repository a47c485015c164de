/* engine_dump: a small "engine" in C99 that writes skinref's dumps through skinref/dump.h.
 *
 *   engine_dump REF.skv OUT.skv [POSE.txt OUT_POSE.json]
 *
 * It reads a reference dump (`skinref skin MODEL --time T --out REF.skv`), keeps the vertices in float
 * arrays as an engine does, and writes them back as an f32 .skv (version 2) whose record names the model and
 * time it read from REF.skv's record; skinref then checks it: `skinref compare REF.skv OUT.skv`.
 *
 * With POSE.txt (this engine's pose, one node per line, see read_engine_pose) it also writes a pose dump in the
 * engine's own orders: nodes by name, palette rows by joint name, matrices row-major, no normal matrices.
 * `skinref compare REF_POSE.json OUT_POSE.json` and `skinref bisect REF_POSE.json OUT_POSE.json REF.skv OUT.skv`
 * read it. Exit status: 0 written, 1 an error (one line on stderr).
 */
#define SKINREF_DUMP_IMPLEMENTATION
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skinref/dump.h"

/* ---- the engine's own data ------------------------------------------------------------------------------- */

typedef struct engine_mesh {
  int node, mesh, primitive, skinned;
  size_t vertex_count;
  float *positions, *normals, *tangents; /* xyz, xyz, xyzw per vertex; NULL when absent */
} engine_mesh;

#define MAX_NAME 128
typedef struct engine_node {
  char name[MAX_NAME];
  float translation[3], rotation[4], scale[3], global[16]; /* global: row-major */
  size_t weight_count;
  float *weights;
} engine_node;

typedef struct engine_skin {
  char name[MAX_NAME];
  size_t joint_count;
  char (*joint_names)[MAX_NAME];
  const char **joint_name_list;
  float *palette; /* joint_count x 16, row-major */
} engine_skin;

typedef struct engine_pose {
  char source[1024];
  int animation;
  double time;
  size_t node_count, skin_count;
  engine_node *nodes;
  engine_skin *skins;
} engine_pose;

static int fail(const char *what) {
  fprintf(stderr, "engine_dump: %s\n", what);
  return 1;
}

/* ---- vertices: REF.skv in, OUT.skv out -------------------------------------------------------------------- */

static float *read_attribute(skinref_skv *skv, size_t i, skinref_skv_attribute attribute, size_t components,
                             skinref_dump_error *error) {
  const size_t count = components * (size_t)skv->primitives[i].vertex_count;
  float *values = (float *)malloc(count ? count * sizeof *values : 1);
  if (values && skinref_skv_read_f32(skv, i, attribute, values, count, error) != SKINREF_DUMP_OK) {
    free(values);
    return NULL;
  }
  return values;
}

static int dump_vertices(const char *ref_path, const char *out_path) {
  skinref_dump_error error;
  skinref_skv ref;
  engine_mesh *meshes;
  skinref_skv_primitive *out;
  skinref_dump_record record;
  char model_hash[25];
  size_t i, count;
  int status = 0;

  if (skinref_skv_open(ref_path, &ref, &error) != SKINREF_DUMP_OK) return fail(error.message);
  if (!ref.record.model || !ref.record.has_time) {
    skinref_skv_close(&ref);
    return fail("the reference dump's record does not name its model and time");
  }
  count = ref.primitive_count;
  meshes = (engine_mesh *)calloc(count ? count : 1, sizeof *meshes);
  out = (skinref_skv_primitive *)calloc(count ? count : 1, sizeof *out);
  if (!meshes || !out) status = fail("out of memory");

  /* The engine's copy: float arrays of its own. */
  for (i = 0; i < count && status == 0; ++i) {
    const skinref_skv_primitive *p = &ref.primitives[i];
    engine_mesh *m = &meshes[i];
    m->node = p->node;
    m->mesh = p->mesh;
    m->primitive = p->primitive;
    m->skinned = p->skinned;
    m->vertex_count = (size_t)p->vertex_count;
    m->positions = read_attribute(&ref, i, SKINREF_SKV_POSITIONS, 3, &error);
    if (m->positions && (p->attributes & SKINREF_SKV_BIT_NORMALS))
      m->normals = read_attribute(&ref, i, SKINREF_SKV_NORMALS, 3, &error);
    if (m->positions && (p->attributes & SKINREF_SKV_BIT_TANGENTS))
      m->tangents = read_attribute(&ref, i, SKINREF_SKV_TANGENTS, 4, &error);
    if (!m->positions || (!m->normals && (p->attributes & SKINREF_SKV_BIT_NORMALS)) ||
        (!m->tangents && (p->attributes & SKINREF_SKV_BIT_TANGENTS)))
      status = fail(error.code ? error.message : "out of memory");
  }

  /* What the engine dumps: its float arrays, and a record of the model and time it played. */
  for (i = 0; i < count && status == 0; ++i) {
    out[i].node = meshes[i].node;
    out[i].mesh = meshes[i].mesh;
    out[i].primitive = meshes[i].primitive;
    out[i].skinned = meshes[i].skinned;
    out[i].vertex_count = meshes[i].vertex_count;
    out[i].positions = skinref_dump_f32(meshes[i].positions);
    out[i].normals = skinref_dump_f32(meshes[i].normals);   /* NULL: no normals */
    out[i].tangents = skinref_dump_f32(meshes[i].tangents); /* NULL: no tangents */
  }
  memset(&record, 0, sizeof record);
  record.writer = "example engine";
  record.model = ref.record.model;
  record.has_time = 1;
  record.time = ref.record.time;
  /* A model file's identity lets skinref refuse a dump of a file that has changed since. */
  if (strncmp(record.model, "builtin:", 8) != 0 && skinref_dump_model_hash(record.model, model_hash, &error) == 0)
    record.model_hash = model_hash;
  if (status == 0 && skinref_skv_write(out_path, SKINREF_DUMP_F32, &record, out, count, &error) != SKINREF_DUMP_OK)
    status = fail(error.message);
  if (status == 0)
    printf("engine_dump: wrote %s: %lu primitives of %s at t = %.9g\n", out_path, (unsigned long)count, record.model,
           record.time);

  for (i = 0; meshes && i < count; ++i) {
    free(meshes[i].positions);
    free(meshes[i].normals);
    free(meshes[i].tangents);
  }
  free(meshes);
  free(out);
  skinref_skv_close(&ref);
  return status;
}

/* ---- the pose: POSE.txt in, OUT_POSE.json out ------------------------------------------------------------- */

static int read_floats(FILE *in, float *values, size_t count) {
  size_t i;
  for (i = 0; i < count; ++i)
    if (fscanf(in, "%f", &values[i]) != 1) return 0;
  return 1;
}

/* This engine's pose file:
 *   source MODEL / animation INDEX (-1: none) / time SECONDS / nodes N, then N lines
 *     NAME WEIGHT_COUNT tx ty tz qx qy qz qw sx sy sz global(16, row-major) weights...
 *   skins S, then per skin: NAME JOINT_COUNT and JOINT_COUNT lines JOINT_NAME palette(16, row-major). */
static int read_engine_pose(const char *path, engine_pose *pose) {
  FILE *in = fopen(path, "r");
  unsigned long count = 0;
  size_t n, s, j;
  int ok;
  memset(pose, 0, sizeof *pose);
  if (!in) return 0;
  ok = fscanf(in, " source %1023s animation %d time %lf nodes %lu", pose->source, &pose->animation, &pose->time,
              &count) == 4;
  pose->node_count = count;
  pose->nodes = ok ? (engine_node *)calloc(pose->node_count + 1, sizeof *pose->nodes) : NULL;
  for (n = 0; ok && pose->nodes && n < pose->node_count; ++n) {
    engine_node *node = &pose->nodes[n];
    ok = fscanf(in, "%127s %lu", node->name, &count) == 2 && read_floats(in, node->translation, 3) &&
         read_floats(in, node->rotation, 4) && read_floats(in, node->scale, 3) && read_floats(in, node->global, 16);
    node->weight_count = count;
    ok = ok && (node->weights = (float *)calloc(node->weight_count + 1, sizeof(float))) != NULL &&
         read_floats(in, node->weights, node->weight_count);
  }
  ok = ok && pose->nodes && fscanf(in, " skins %lu", &count) == 1;
  pose->skin_count = ok ? count : 0;
  pose->skins = ok ? (engine_skin *)calloc(pose->skin_count + 1, sizeof *pose->skins) : NULL;
  for (s = 0; ok && pose->skins && s < pose->skin_count; ++s) {
    engine_skin *skin = &pose->skins[s];
    ok = fscanf(in, "%127s %lu", skin->name, &count) == 2;
    skin->joint_count = ok ? count : 0;
    ok = ok && (skin->joint_names = (char(*)[MAX_NAME])calloc(skin->joint_count + 1, MAX_NAME)) != NULL &&
         (skin->joint_name_list = (const char **)calloc(skin->joint_count + 1, sizeof(char *))) != NULL &&
         (skin->palette = (float *)calloc(16 * skin->joint_count + 1, sizeof(float))) != NULL;
    for (j = 0; ok && j < skin->joint_count; ++j) {
      ok = fscanf(in, "%127s", skin->joint_names[j]) == 1 && read_floats(in, skin->palette + 16 * j, 16);
      skin->joint_name_list[j] = skin->joint_names[j];
    }
  }
  fclose(in);
  return ok && pose->skins;
}

static void free_engine_pose(engine_pose *pose) {
  size_t i;
  for (i = 0; pose->nodes && i < pose->node_count; ++i) free(pose->nodes[i].weights);
  for (i = 0; pose->skins && i < pose->skin_count; ++i) {
    free(pose->skins[i].joint_names);
    free((void *)pose->skins[i].joint_name_list);
    free(pose->skins[i].palette);
  }
  free(pose->nodes);
  free(pose->skins);
}

static int dump_pose(const char *pose_path, const char *out_path) {
  engine_pose engine;
  skinref_pose pose;
  skinref_pose_node *nodes;
  skinref_pose_skin *skins;
  skinref_dump_error error;
  size_t i;
  int status = 0;
  if (!read_engine_pose(pose_path, &engine)) {
    free_engine_pose(&engine);
    return fail("cannot read the engine pose file");
  }
  nodes = (skinref_pose_node *)calloc(engine.node_count + 1, sizeof *nodes);
  skins = (skinref_pose_skin *)calloc(engine.skin_count + 1, sizeof *skins);
  if (!nodes || !skins) status = fail("out of memory");
  for (i = 0; status == 0 && i < engine.node_count; ++i) {
    const engine_node *node = &engine.nodes[i];
    nodes[i].name = node->name; /* entries in the engine's order, matched by name */
    nodes[i].translation = skinref_dump_f32(node->translation);
    nodes[i].rotation = skinref_dump_f32(node->rotation);
    nodes[i].scale = skinref_dump_f32(node->scale);
    nodes[i].global = skinref_dump_f32(node->global);
    nodes[i].morph_weights = skinref_dump_f32(node->weights);
    nodes[i].morph_weight_count = node->weight_count;
  }
  for (i = 0; status == 0 && i < engine.skin_count; ++i) {
    const engine_skin *skin = &engine.skins[i];
    skins[i].name = skin->name;
    skins[i].joint_count = skin->joint_count;
    skins[i].joint_names = skin->joint_name_list; /* palette rows in the engine's joint order */
    skins[i].palette = skinref_dump_f32(skin->palette);
    /* normal_matrices left out: skinref derives them from the palette */
  }
  memset(&pose, 0, sizeof pose);
  pose.writer = "example engine";
  pose.source = engine.source;
  pose.animation = engine.animation;
  pose.time = engine.time;
  pose.matrix_order = SKINREF_POSE_ROW_MAJOR;
  pose.nodes = nodes;
  pose.node_count = engine.node_count;
  pose.skins = skins;
  pose.skin_count = engine.skin_count;
  if (status == 0 && skinref_pose_write(out_path, &pose, &error) != SKINREF_DUMP_OK) status = fail(error.message);
  if (status == 0)
    printf("engine_dump: wrote %s: %lu nodes, %lu skins\n", out_path, (unsigned long)engine.node_count,
           (unsigned long)engine.skin_count);
  free(nodes);
  free(skins);
  free_engine_pose(&engine);
  return status;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 5) {
    fprintf(stderr, "usage: engine_dump REF.skv OUT.skv [POSE.txt OUT_POSE.json]\n");
    return 1;
  }
  if (dump_vertices(argv[1], argv[2]) != 0) return 1;
  if (argc == 5 && dump_pose(argv[3], argv[4]) != 0) return 1;
  return 0;
}
