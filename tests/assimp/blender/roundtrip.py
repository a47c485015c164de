"""Re-export a glTF file as FBX and Collada with Blender: independent-exporter test data for the Assimp loader.

Usage (headless; Blender 3.4 from Debian, tested with 3.4.1):

    blender -b --factory-startup -P tests/assimp/blender/roundtrip.py -- INPUT.glb OUT_DIR [--name NAME]
            [--source WHAT]

Writes OUT_DIR/NAME.fbx, OUT_DIR/NAME.dae and OUT_DIR/NAME.roundtrip.json (NAME defaults to INPUT's base name;
WHAT, recorded in the JSON, says where INPUT came from, e.g. 'skinref export builtin:twist').
This script is NOT part of the build or of CI: it was run once by make_roundtrip_files.sh and its outputs are
committed. The JSON says what Blender was asked, what it did (frame rate, frame range, baked key times, unit and
axis conversions, per-node renames and moves) and what it dropped, so a test can account for each difference.

Why each option
---------------
glTF import (bpy.ops.import_scene.gltf):
  bone_heuristic='BLENDER'        Each bone gets the extra local rotation of +90 deg about X that cancels the
                                  Y-up -> Z-up change, so a bone's local frame IS the glTF joint's local frame
                                  and bone-to-parent-bone transforms equal the glTF node TRS. The default
                                  ('TEMPERANCE') re-aims bones at their children, which would change every
                                  joint's local rotation in the exported files (skinning would still match, the
                                  per-joint local transforms would not).
  guess_original_bind_pose=True   (default) Blender has a single rest pose; it is taken from the inverse bind
                                  matrices, so the mesh is bound exactly as the glTF skin says. Where a joint's
                                  node TRS differs from its bind pose, the difference goes into the animation /
                                  pose, not into the mesh.
  merge_vertices=False            (default) keep glTF's vertices as they are (no welding of seams).
  import_shading='NORMALS'        (default) keep the file's normals as custom split normals.
  Scene frame rate is set to 24 fps (fps_base 1) before import, explicitly: the importer turns each glTF key time
  t into frame t * 24 (no offset, fractional frames allowed). Scene units: metric, scale_length 1 (1 unit = 1 m).

Frame range and baking: both exporters sample the scene timeline at whole frames. The scene range is set to
  [0, ceil(last key frame)] (a key within 1e-3 frame of an integer counts as on it; the start would be
  floor(first key frame) if that were negative), so the baked times are k / 24 s for each whole frame k in that
  range, absolute. The range starts at 0 even where the first key is later (CesiumMan and RiggedSimple start at
  1/24 s): Assimp's FBX importer shifts every animation stack so that its LocalStart becomes tick 0, so a stack
  starting at 1/24 s would come back 1/24 s early; before the first key glTF and Blender both hold the first
  key's value, so the extra frame is exact.
Rotation between keys: Blender evaluates quaternion F-curves per component and normalises the result (nlerp of
  the keys as stored), not slerp. Baked values equal the source at source key times; between keys they differ
  from glTF's slerp by up to 'rotation_nlerp_vs_slerp.max_deg' in the JSON, and they match skinref's
  `--convention rotation=nlerp` (which normalises the keys first: the same unless a file's keys are not unit
  length, as SimpleSkin's are, |q| = 1.00023 and 0.99985). Translation and scale are linear in both.
  Only the first glTF animation is exported (the importer makes it the active action; the others would be
  stashed NLA tracks).

FBX export (bpy.ops.export_scene.fbx), binary FBX 7.4:
  bake_anim=True, bake_anim_use_all_bones=True, bake_anim_force_startend_keying=True, bake_anim_step=1.0
  bake_anim_simplify_factor=0.0   Keep every baked frame (the default 1.0 drops keys it thinks redundant).
  bake_anim_use_nla_strips=False, bake_anim_use_all_actions=False
                                  One animation stack over the scene range with absolute times. (The per-action
                                  and per-strip modes shift every stack to start at t = 0, and the importer's
                                  stashed NLA strips start at frame 1.) The stack is named after the Blender
                                  scene, so the scene is renamed to the glTF animation's name (kept 'Scene' when
                                  the glTF animation has no name).
  add_leaf_bones=False            No extra '_end' bones.
  use_armature_deform_only=True   Only deform bones (every glTF joint is one; Blender keeps non-deform bones that
                                  have deform children).
  primary_bone_axis='Y', secondary_bone_axis='X' (defaults): no bone-axis correction.
  armature_nodetype='NULL'        (default) the armature object is written as a Null node above the root bone.
  object_types={'EMPTY','ARMATURE','MESH'}   no lights or cameras (the factory scene is emptied anyway); empties
                                  keep glTF nodes that are neither joints nor meshes.
  use_mesh_modifiers=False        Export the mesh data, not the evaluated mesh (the armature modifier is not
                                  applied either way; this just leaves no doubt).
  global_scale=1.0, apply_unit_scale=True, apply_scale_options='FBX_SCALE_UNITS'
                                  Geometry and transforms stay in metres (no 100x on the root node) and the file
                                  says so: GlobalSettings UnitScaleFactor = 100 (centimetres per unit). Blender's
                                  default ('FBX_SCALE_NONE') would instead write UnitScaleFactor 1 (cm) and put a
                                  scale of 100 on each root node. Assimp reads values as stored (metres), and with
                                  aiProcess_GlobalScale its file scale is UnitScaleFactor / 100 = 1.
  axis_forward='-Z', axis_up='Y'  (defaults) GlobalSettings says Y up; Blender applies the matrix that maps its
                                  Z-up (x, y, z) to (x, z, -y) to the ROOT objects' transforms only
                                  (bake_space_transform=False), so each root node (the armature's Null, the
                                  skinned mesh, other root empties) carries that -90 deg rotation about X times
                                  its own transform, and the nodes below are in Blender's Z-up space; the world
                                  result is glTF's Y-up world again.
  path_mode='STRIP', embed_textures=False   texture references are bare file names; nothing embedded.
  use_custom_props=False, use_metadata=True (defaults).

Collada export (bpy.ops.wm.collada_export), Blender's built-in OpenCOLLADA exporter:
  include_armatures=True, deform_bones_only=True, include_children=True, selected=False  the armature and its skin
                                  controller for every skinned mesh.
  include_animations=True, include_all_actions=False
                                  One set of <animation>s (the active action) over the scene range; no
                                  <library_animation_clips>, which Debian's Assimp 5.2 does not load.
  export_animation_type_selection='sample', sampling_rate=1   baked at every whole frame of the scene range,
                                  like the FBX.
  keep_flat_curves=True           Also write the channels that do not change (a joint posed away from its rest
                                  but not animated, e.g. node-transforms' jointA, whose pose carries a scale of
                                  0.5 that a Blender rest bone cannot hold); without them a reader falls back
                                  to the rest matrix and the pose is wrong.
  export_animation_transformation_type_selection='matrix', export_object_transformation_type_selection='matrix'
                                  (defaults) full node matrices, no Euler decomposition.
  export_global_forward_selection='Y', export_global_up_selection='Z', apply_global_orientation=False (defaults)
                                  No conversion: the file is in Blender's Z-up space and says
                                  <up_axis>Z_UP</up_axis>, <unit meter="1">. A reader that honours Z_UP (Assimp
                                  does unless AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION) rotates it back to
                                  glTF's Y-up world.
  triangulate=True (default), use_texture_copies=False (no image files next to the .dae),
  use_blender_profile=False (no Blender-only <extra> bone data), limit_precision=False (full float precision),
  keep_bind_info=False, apply_modifiers=False, include_shapekeys=False.

Collada fix-up: Blender 3.4's Collada exporter writes each INV_BIND_MATRIX in world space and an identity matrix
  on the skinned mesh's node, meaning the mesh object's matrix to go into <bind_shape_matrix>, but writes the
  mesh's parent-relative matrix there instead of its world matrix. The glTF importer makes every skinned mesh a
  child of its armature with an identity local matrix, so wherever the armature's world matrix is not the
  identity (CesiumMan, RiggedSimple, RiggedFigure, node-transforms) the file would skin in the wrong place.
  After the export, each <bind_shape_matrix> that differs from the mesh object's world matrix is replaced by it
  in the .dae text (recorded under 'changes'; nothing else is edited). Making the mesh a root object instead
  makes the exporter write the armature's nodes twice (duplicate ids), so the file is patched.

Blender 3.4's glTF importer uses np.bool, which NumPy 1.24 removed; `numpy.bool = bool` is set first when it is
missing (recorded in the JSON under 'workarounds').
"""

import json
import math
import os
import struct
import sys
import xml.etree.ElementTree as ET

workarounds = []
try:
    import numpy

    if "bool" not in numpy.__dict__:
        numpy.bool = bool
        workarounds.append("numpy %s: set numpy.bool = bool for Blender 3.4's glTF importer" % numpy.__version__)
except ImportError:
    numpy = None

import bpy  # noqa: E402
from bpy_extras.io_utils import axis_conversion  # noqa: E402
from mathutils import Matrix, Quaternion  # noqa: E402

FPS = 24
ON_FRAME_EPS = 1e-3  # a key time within this many frames of a whole frame counts as on it

IMPORT_OPTIONS = dict(
    bone_heuristic="BLENDER",
    guess_original_bind_pose=True,
    merge_vertices=False,
    import_shading="NORMALS",
    import_pack_images=True,
)

FBX_OPTIONS = dict(
    use_selection=False,
    use_visible=False,
    use_active_collection=False,
    global_scale=1.0,
    apply_unit_scale=True,
    apply_scale_options="FBX_SCALE_UNITS",
    use_space_transform=True,
    bake_space_transform=False,
    object_types={"EMPTY", "ARMATURE", "MESH"},
    use_mesh_modifiers=False,
    mesh_smooth_type="OFF",
    use_subsurf=False,
    use_mesh_edges=False,
    use_tspace=False,
    use_triangles=False,
    use_custom_props=False,
    add_leaf_bones=False,
    primary_bone_axis="Y",
    secondary_bone_axis="X",
    use_armature_deform_only=True,
    armature_nodetype="NULL",
    bake_anim=True,
    bake_anim_use_all_bones=True,
    bake_anim_use_nla_strips=False,
    bake_anim_use_all_actions=False,
    bake_anim_force_startend_keying=True,
    bake_anim_step=1.0,
    bake_anim_simplify_factor=0.0,
    path_mode="STRIP",
    embed_textures=False,
    batch_mode="OFF",
    use_metadata=True,
    axis_forward="-Z",
    axis_up="Y",
)

COLLADA_OPTIONS = dict(
    apply_modifiers=False,
    export_mesh_type_selection="view",
    export_global_forward_selection="Y",
    export_global_up_selection="Z",
    apply_global_orientation=False,
    selected=False,
    include_children=True,
    include_armatures=True,
    include_shapekeys=False,
    deform_bones_only=True,
    include_animations=True,
    include_all_actions=False,
    export_animation_type_selection="sample",
    sampling_rate=1,
    keep_smooth_curves=False,
    keep_keyframes=False,
    keep_flat_curves=True,
    active_uv_only=False,
    use_texture_copies=False,
    triangulate=True,
    use_object_instantiation=True,
    use_blender_profile=False,
    sort_by_name=False,
    export_object_transformation_type_selection="matrix",
    export_animation_transformation_type_selection="matrix",
    open_sim=False,
    limit_precision=False,
    keep_bind_info=False,
)


def fail(msg):
    print("roundtrip.py: error: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    name = None
    source = None
    pos = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--name", "--source") and i + 1 < len(argv):
            if argv[i] == "--name":
                name = argv[i + 1]
            else:
                source = argv[i + 1]
            i += 2
            continue
        pos.append(argv[i])
        i += 1
    if len(pos) != 2:
        fail("usage: blender -b --factory-startup -P roundtrip.py -- INPUT.glb|INPUT.gltf OUT_DIR [--name NAME] "
             "[--source WHAT]")
    src, out_dir = pos
    if name is None:
        name = os.path.splitext(os.path.basename(src))[0]
    return os.path.abspath(src), os.path.abspath(out_dir), name, source


# ---------------------------------------------------------------------------------------------------------------
# Reading the input glTF ourselves (names, key times), independent of Blender's importer.

def read_gltf(path):
    with open(path, "rb") as f:
        data = f.read()
    bin_chunk = None
    if data[:4] == b"glTF":
        length = struct.unpack_from("<I", data, 8)[0]
        off = 12
        doc = None
        while off < length:
            clen, ctype = struct.unpack_from("<II", data, off)
            chunk = data[off + 8: off + 8 + clen]
            if ctype == 0x4E4F534A:
                doc = json.loads(chunk.decode("utf-8"))
            elif ctype == 0x004E4942:
                bin_chunk = chunk
            off += 8 + clen
    else:
        doc = json.loads(data.decode("utf-8"))
    base = os.path.dirname(path)

    def buffer_bytes(i):
        b = doc["buffers"][i]
        if "uri" not in b:
            return bin_chunk
        uri = b["uri"]
        if uri.startswith("data:"):
            import base64
            return base64.b64decode(uri.split(",", 1)[1])
        with open(os.path.join(base, uri), "rb") as f:
            return f.read()

    def read_scalar_floats(acc_index):
        acc = doc["accessors"][acc_index]
        assert acc["componentType"] == 5126 and acc["type"] == "SCALAR"
        bv = doc["bufferViews"][acc["bufferView"]]
        buf = buffer_bytes(bv["buffer"])
        start = bv.get("byteOffset", 0) + acc.get("byteOffset", 0)
        stride = bv.get("byteStride", 4)
        return [struct.unpack_from("<f", buf, start + k * stride)[0] for k in range(acc["count"])]

    return doc, read_scalar_floats


# ---------------------------------------------------------------------------------------------------------------
# Capturing the importer's node mapping (glTF node -> Blender object / bone).

captured = {}


def install_import_hook():
    from io_scene_gltf2.blender.imp.gltf2_blender_gltf import BlenderGlTF

    original = BlenderGlTF.create

    def create(gltf):
        original(gltf)
        captured["gltf"] = gltf
        try:
            from io_scene_gltf2.blender.imp.gltf2_blender_vnode import VNode
        except ImportError:
            VNode = None
        vn = {}
        for vid, v in gltf.vnodes.items():
            e = {"parent": None if v.parent is None else str(v.parent)}
            if VNode is not None and v.type == VNode.Bone:
                e["kind"] = "bone"
                e["bone"] = getattr(v, "blender_bone_name", None)
                arma = gltf.vnodes[v.bone_arma]
                e["armature_object"] = arma.blender_object.name if getattr(arma, "blender_object", None) else None
            elif VNode is not None and v.type == VNode.DummyRoot:
                e["kind"] = "dummy_root"
            else:
                e["kind"] = "armature_object" if v.is_arma else "object"
                obj = getattr(v, "blender_object", None)
                e["object"] = obj.name if obj is not None else None
                e["object_type"] = obj.type if obj is not None else None
            if v.mesh_node_idx is not None:
                e["mesh_from_gltf_node"] = v.mesh_node_idx
            vn[str(vid)] = e
        captured["vnodes"] = vn

    BlenderGlTF.create = staticmethod(create)
    return lambda: setattr(BlenderGlTF, "create", staticmethod(original))


# ---------------------------------------------------------------------------------------------------------------
# Helpers over the Blender scene.

def scene_objects_summary(scene):
    out = []
    for ob in sorted(scene.objects, key=lambda o: o.name):
        e = {
            "name": ob.name,
            "type": ob.type,
            "parent": ob.parent.name if ob.parent else None,
            "parent_type": ob.parent_type if ob.parent else None,
        }
        if ob.parent_type == "BONE":
            e["parent_bone"] = ob.parent_bone
        if ob.type == "ARMATURE":
            e["bones"] = [
                {"name": b.name, "parent": b.parent.name if b.parent else None, "deform": b.use_deform}
                for b in ob.data.bones
            ]
        if ob.type == "MESH":
            me = ob.data
            counts = [sum(1 for g in v.groups if g.weight > 0.0) for v in me.vertices]
            e["mesh"] = {
                "vertices": len(me.vertices),
                "polygons": len(me.polygons),
                "loops": len(me.loops),
                "vertex_groups": len(ob.vertex_groups),
                "max_nonzero_influences_per_vertex": max(counts) if counts else 0,
                "shape_keys": len(me.shape_keys.key_blocks) if me.shape_keys else 0,
                "armature_modifiers": [m.object.name if m.object else None for m in ob.modifiers
                                       if m.type == "ARMATURE"],
            }
        ad = ob.animation_data
        if ad is not None:
            e["active_action"] = ad.action.name if ad.action else None
            e["nla_tracks"] = [t.name for t in ad.nla_tracks]
        out.append(e)
    return out


def fix_collada_bind_shape_matrices(dae_path, scene):
    """Blender 3.4's Collada exporter writes each joint's INV_BIND_MATRIX in world space (armature world matrix x
    bone rest matrix) and an identity <matrix> on the skinned mesh's node, meaning to put the mesh object's matrix
    in <bind_shape_matrix>; but it writes the mesh's parent-relative matrix there, not its world matrix. The glTF
    importer parents every skinned mesh to its armature with an identity local matrix, so wherever the armature's
    world matrix is not the identity the file skins in the wrong place. This rewrites each <bind_shape_matrix> of
    the written file with the mesh object's world matrix (row-major, as Collada stores matrices) and says which
    ones changed. Nothing else in the file is touched."""
    ns = "{http://www.collada.org/2005/11/COLLADASchema}"
    root = ET.parse(dae_path).getroot()
    controller_object = {}
    for node in root.iter(ns + "node"):
        for ic in node.findall(ns + "instance_controller"):
            controller_object[ic.get("url").lstrip("#")] = node.get("name")
    with open(dae_path, "r", encoding="utf-8") as f:
        text = f.read()
    changes = []
    for cid, obname in sorted(controller_object.items()):
        ob = scene.objects.get(obname)
        if ob is None:
            continue
        start = text.find('<controller id="%s"' % cid)
        if start < 0:
            continue
        open_tag, close_tag = "<bind_shape_matrix>", "</bind_shape_matrix>"
        i = text.find(open_tag, start)
        j = text.find(close_tag, i)
        old = text[i + len(open_tag):j]
        new = " ".join("%.9g" % ob.matrix_world[r][c] for r in range(4) for c in range(4))
        old_m = [float(x) for x in old.split()]
        new_m = [float(x) for x in new.split()]
        if max(abs(x - y) for x, y in zip(old_m, new_m)) <= 1e-7:
            continue
        text = text[:i + len(open_tag)] + new + text[j:]
        changes.append("Collada: bind_shape_matrix of controller '%s' (mesh '%s') rewritten from the mesh's "
                       "parent-relative matrix [%s] to its world matrix [%s]: Blender 3.4's exporter writes the "
                       "former while its inverse bind matrices are in world space" % (cid, obname, old, new))
    if changes:
        with open(dae_path, "w", encoding="utf-8") as f:
            f.write(text)
    return changes


def is_identity(m, eps=1e-9):
    return all(abs(m[i][j] - (1.0 if i == j else 0.0)) <= eps for i in range(4) for j in range(4))


def active_actions(scene):
    acts = []
    for ob in scene.objects:
        ad = ob.animation_data
        if ad is not None and ad.action is not None and ad.action not in acts:
            acts.append(ad.action)
    return acts


def key_frames(actions):
    frames = set()
    for act in actions:
        for fc in act.fcurves:
            for kp in fc.keyframe_points:
                frames.add(kp.co[0])
    return sorted(frames)


def snap(f):
    r = round(f)
    return r if abs(f - r) <= ON_FRAME_EPS else None


def rotation_nlerp_vs_slerp(actions, frames):
    """Max angle (degrees) between Blender's per-component-interpolated, normalised quaternion and the slerp of
    the two bracketing keys, at the baked whole frames, over every quaternion channel of the active actions."""
    worst = {"max_deg": 0.0, "at_frame": None, "channel": None, "channels": 0}
    groups = {}
    for act in actions:
        for fc in act.fcurves:
            if fc.data_path.endswith("rotation_quaternion"):
                groups.setdefault((act.name, fc.data_path), {})[fc.array_index] = fc
    for (act_name, path), comps in groups.items():
        if len(comps) != 4:
            continue
        worst["channels"] += 1
        keys = [kp.co[0] for kp in comps[0].keyframe_points]
        kq = []
        for k in range(len(keys)):
            kq.append(Quaternion([comps[i].keyframe_points[k].co[1] for i in range(4)]))
        for f in frames:
            q = Quaternion([comps[i].evaluate(f) for i in range(4)]).normalized()
            if f <= keys[0]:
                ref = kq[0].normalized()
            elif f >= keys[-1]:
                ref = kq[-1].normalized()
            else:
                j = max(i for i in range(len(keys)) if keys[i] <= f)
                t = (f - keys[j]) / (keys[j + 1] - keys[j])
                ref = kq[j].normalized().slerp(kq[j + 1].normalized(), t)
            d = abs(q.dot(ref))
            ang = math.degrees(2.0 * math.acos(min(1.0, d)))
            if ang > worst["max_deg"]:
                worst.update(max_deg=ang, at_frame=f, channel="%s: %s" % (act_name, path))
    return worst


# ---------------------------------------------------------------------------------------------------------------
# Reading back what was written.

def inspect_fbx(path):
    from io_scene_fbx import parse_fbx

    root, version = parse_fbx.parse(path)

    def child(elem, eid):
        for e in elem.elems:
            if e.id == eid:
                return e
        return None

    def name_of(prop):
        return prop.split(b"\x00\x01")[0].decode("utf-8", "replace")

    info = {"fbx_version": version}
    gs = child(root, b"GlobalSettings")
    p70 = child(gs, b"Properties70") if gs else None
    settings = {}
    if p70 is not None:
        for p in p70.elems:
            key = p.props[0].decode()
            if key in ("UpAxis", "UpAxisSign", "FrontAxis", "FrontAxisSign", "CoordAxis", "CoordAxisSign",
                       "UnitScaleFactor", "OriginalUnitScaleFactor", "TimeMode", "CustomFrameRate"):
                settings[key] = p.props[4]
    info["global_settings"] = settings
    objects = child(root, b"Objects")
    models, deformers, stacks = [], {"Skin": 0, "Cluster": 0}, []
    times = set()
    curves = 0
    for e in objects.elems:
        if e.id == b"Model":
            models.append({"name": name_of(e.props[1]), "type": e.props[2].decode()})
        elif e.id == b"Deformer":
            t = e.props[2].decode()
            deformers[t] = deformers.get(t, 0) + 1
        elif e.id == b"AnimationStack":
            stacks.append(name_of(e.props[1]))
        elif e.id == b"AnimationCurve":
            curves += 1
            kt = child(e, b"KeyTime")
            if kt is not None:
                times.update(int(t) for t in kt.props[0])
    info["models"] = models
    info["deformers"] = deformers
    info["animation_stacks"] = stacks
    info["animation_curves"] = curves
    ktime = 46186158000
    info["key_times_ktime"] = sorted(times)
    info["key_times_s"] = [t / ktime for t in sorted(times)]
    return info


def inspect_dae(path):
    ns = {"c": "http://www.collada.org/2005/11/COLLADASchema"}
    tree = ET.parse(path)
    r = tree.getroot()
    info = {"collada_version": r.get("version")}
    up = r.find("c:asset/c:up_axis", ns)
    unit = r.find("c:asset/c:unit", ns)
    info["up_axis"] = up.text if up is not None else None
    info["unit"] = {"name": unit.get("name"), "meter": unit.get("meter")} if unit is not None else None

    nodes = []

    def walk(node, parent):
        nodes.append({"id": node.get("id"), "name": node.get("name"), "sid": node.get("sid"),
                      "type": node.get("type", "NODE"), "parent": parent})
        for c in node.findall("c:node", ns):
            walk(c, node.get("id"))

    for vs in r.findall("c:library_visual_scenes/c:visual_scene", ns):
        for n in vs.findall("c:node", ns):
            walk(n, None)
    info["nodes"] = nodes
    skins = []
    for ctrl in r.findall("c:library_controllers/c:controller", ns):
        skin = ctrl.find("c:skin", ns)
        if skin is None:
            continue
        joints_src = None
        for inp in skin.findall("c:joints/c:input", ns):
            if inp.get("semantic") == "JOINT":
                joints_src = inp.get("source").lstrip("#")
        names = []
        for src in skin.findall("c:source", ns):
            if src.get("id") == joints_src:
                na = src.find("c:Name_array", ns)
                names = (na.text or "").split()
        vw = skin.find("c:vertex_weights", ns)
        vcount = [int(x) for x in (vw.find("c:vcount", ns).text or "").split()] if vw is not None else []
        skins.append({"controller": ctrl.get("id"), "source": skin.get("source"), "joints": names,
                      "vertices": len(vcount), "max_influences": max(vcount) if vcount else 0})
    info["skins"] = skins
    times = set()
    channels = 0
    for anim in r.iter("{%s}animation" % ns["c"]):
        channels += len(anim.findall("c:channel", ns))
        for sampler in anim.findall("c:sampler", ns):
            for inp in sampler.findall("c:input", ns):
                if inp.get("semantic") == "INPUT":
                    sid = inp.get("source").lstrip("#")
                    for src in anim.findall("c:source", ns):
                        if src.get("id") == sid:
                            fa = src.find("c:float_array", ns)
                            times.update(float(x) for x in (fa.text or "").split())
    info["animation_channels"] = channels
    info["library_animation_clips"] = r.find("c:library_animation_clips", ns) is not None
    info["key_times_s"] = sorted(times)
    return info


# ---------------------------------------------------------------------------------------------------------------

def file_sha256(path):
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def matrix_rows(m):
    return [[round(v, 12) + 0.0 for v in row] for row in m]


def import_into_empty_scene(src):
    """An empty scene at 24 fps, metric units of 1 m, with the glTF file imported into it."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.render.fps_base = 1.0
    scene.unit_settings.system = "METRIC"
    scene.unit_settings.scale_length = 1.0

    restore = install_import_hook()
    res = bpy.ops.import_scene.gltf(filepath=src, **IMPORT_OPTIONS)
    restore()
    if "FINISHED" not in res:
        fail("glTF import of %s failed: %s" % (src, res))
    return scene


def map_nodes(gltf_nodes, vnodes, changes):
    """Per glTF node, the Blender bone or object made of it; appends each rename, instanced mesh and new
    armature object to changes."""
    node_map = []
    for i, n in enumerate(gltf_nodes):
        v = vnodes.get(str(i), {})
        e = {"index": i, "gltf_name": n.get("name"), "blender": v}
        bname = v.get("bone") or v.get("object")
        e["blender_name"] = bname
        if bname != n.get("name"):
            changes.append("glTF node %d %s became %s '%s'" % (
                i, json.dumps(n.get("name")), v.get("kind"), bname))
        if "mesh" in n and v.get("mesh_from_gltf_node") != i:
            moved = [k for k, x in vnodes.items() if x.get("mesh_from_gltf_node") == i]
            for k in moved:
                x = vnodes[k]
                changes.append("the mesh of glTF node %d %s is instanced by a new Blender object '%s' (parent %s)"
                               % (i, json.dumps(n.get("name")), x.get("object"),
                                  json.dumps(vnodes.get(x["parent"], {}).get("object") or x["parent"])))
        node_map.append(e)
    for k, x in vnodes.items():
        if k == "root" and x.get("kind") == "armature_object":
            changes.append("new armature object '%s' (no glTF node) is the parent of the glTF scene roots"
                           % x.get("object"))
    return node_map


def note_skinned_mesh_moves(gltf_nodes, vnodes, changes):
    """Appends to changes each skinned mesh the importer made a child of its armature object."""
    skinned_moves = []
    for k, x in vnodes.items():
        if "mesh_from_gltf_node" in x and x.get("kind") in ("object", None):
            par = vnodes.get(x["parent"], {}) if x["parent"] is not None else {}
            if par.get("kind") == "armature_object":
                gi = x["mesh_from_gltf_node"]
                gparent = next((j for j, n in enumerate(gltf_nodes) if gi in n.get("children", [])), None)
                skinned_moves.append({"gltf_node": gi, "blender_object": x.get("object"),
                                      "blender_parent": par.get("object"), "gltf_parent": gparent})
    for m in skinned_moves:
        changes.append("skinned mesh node %d is a child of armature object '%s' with an identity local transform "
                       "(glTF parent: %s)" % (m["gltf_node"], m["blender_parent"], m["gltf_parent"]))


def note_animation_changes(doc, read_scalar_floats, changes):
    """(glTF animations, the exported clip's name, the first animation's key times, morph target count); appends
    to changes what the export drops: later animations, morph targets and their weight channels."""
    anims = doc.get("animations", [])
    clip_name = anims[0].get("name") if anims else None
    if len(anims) > 1:
        changes.append("only the first glTF animation is exported; dropped: %s"
                       % [a.get("name") for a in anims[1:]])
    src_key_times = sorted({t for a in anims[:1] for s in a.get("samplers", [])
                            for t in read_scalar_floats(s["input"])})
    morph_targets = sum(len(p.get("targets", [])) for m in doc.get("meshes", []) for p in m.get("primitives", []))
    if morph_targets:
        changes.append("%d morph target(s) in the glTF are not exported (include_shapekeys=False / FBX shape keys "
                       "not checked)" % morph_targets)
    weight_channels = sum(1 for a in anims[:1] for c in a.get("channels", []) if c["target"]["path"] == "weights")
    if weight_channels:
        changes.append("%d morph-weight channel(s) dropped" % weight_channels)
    return anims, clip_name, src_key_times, morph_targets


def set_frame_range(scene, frames_keys):
    """Sets the scene range to [min(0, first key), last key] in whole frames (see "Frame range and baking");
    returns the frames the exporters bake."""
    if frames_keys:
        lo, hi = frames_keys[0], frames_keys[-1]
        f_start = min(0, snap(lo) if snap(lo) is not None else math.floor(lo))
        f_end = snap(hi) if snap(hi) is not None else math.ceil(hi)
    else:
        f_start = f_end = 0
    scene.frame_start = int(f_start)
    scene.frame_end = int(f_end)
    scene.frame_set(int(f_start))
    return list(range(int(f_start), int(f_end) + 1))


def input_summary(src, source, doc, anims, morph_targets, src_key_times):
    """The report's "input": the glTF file and what it holds."""
    return {
        "file": os.path.basename(src),
        "source": source,
        "sha256": file_sha256(src),
        "nodes": len(doc.get("nodes", [])),
        "skins": len(doc.get("skins", [])),
        "animations": [{"name": a.get("name"), "channels": len(a.get("channels", []))} for a in anims],
        "morph_targets": morph_targets,
        "first_animation_key_times_s": src_key_times,
    }


def blender_summary(src, name, source):
    """The report's "blender": the versions that ran and the command line that reproduces the run."""
    return {
        "version": bpy.app.version_string,
        "gltf_importer_version": ".".join(map(str, __import__("io_scene_gltf2").bl_info["version"])),
        "fbx_exporter_version": ".".join(map(str, __import__("io_scene_fbx").bl_info["version"])),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__ if numpy else None,
        "command": "blender -b --factory-startup -P tests/assimp/blender/roundtrip.py -- %s OUT_DIR --name %s%s"
                   % (os.path.basename(src), name, " --source '%s'" % source if source else ""),
    }


def scene_summary(scene, frames_keys, off_grid, baked_frames, interp, actions):
    """The report's "scene": frame rate, units, the frame range and what was baked over it."""
    return {
        "name": scene.name,
        "fps": scene.render.fps,
        "fps_base": scene.render.fps_base,
        "unit_system": scene.unit_settings.system,
        "unit_scale_length": scene.unit_settings.scale_length,
        "frame_start": scene.frame_start,
        "frame_end": scene.frame_end,
        "imported_key_frames": frames_keys,
        "imported_key_frames_off_whole_frames": off_grid,
        "baked_frames": baked_frames,
        "baked_frames_before_first_key": [f for f in baked_frames
                                          if frames_keys and f < frames_keys[0] - ON_FRAME_EPS],
        "baked_times_s": [f / FPS for f in baked_frames],
        "rotation_nlerp_vs_slerp": interp,
        "actions": [a.name for a in bpy.data.actions],
        "active_actions": [a.name for a in actions],
    }


def conversions_summary(scene):
    """The report's "conversions": the axes, units and times of the import and of each export, from the
    operators' parameters."""
    fbx_axis = axis_conversion(to_forward=FBX_OPTIONS["axis_forward"], to_up=FBX_OPTIONS["axis_up"]).to_4x4()
    unit_factor = 100.0 * scene.unit_settings.scale_length  # Blender units -> cm (units_blender_to_fbx_factor)
    if FBX_OPTIONS["apply_scale_options"] == "FBX_SCALE_UNITS":
        fbx_root_scale = FBX_OPTIONS["global_scale"]
        fbx_unit_scale_factor = unit_factor if FBX_OPTIONS["apply_unit_scale"] else 100.0
    else:
        fbx_root_scale = None
        fbx_unit_scale_factor = None
    gltf_to_blender = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))
    return {
        "gltf_import": {
            "axes": "glTF Y-up (x, y, z) -> Blender Z-up (x, -z, y); rotations (x,y,z,w) -> (w, x, -z, y)",
            "matrix": matrix_rows(gltf_to_blender),
            "unit_scale": 1.0 / scene.unit_settings.scale_length,
            "time": "frame = t * %d (no offset)" % FPS,
        },
        "fbx": {
            "axis_forward": FBX_OPTIONS["axis_forward"],
            "axis_up": FBX_OPTIONS["axis_up"],
            "axes": "Blender (x, y, z) -> FBX (x, z, -y), applied to root objects' transforms only "
                    "(bake_space_transform=False)",
            "global_matrix": matrix_rows(Matrix.Scale(fbx_root_scale or 1.0, 4) @ fbx_axis),
            "global_scale": FBX_OPTIONS["global_scale"],
            "apply_unit_scale": FBX_OPTIONS["apply_unit_scale"],
            "apply_scale_options": FBX_OPTIONS["apply_scale_options"],
            "scale_on_root_transforms": fbx_root_scale,
            "UnitScaleFactor_written": fbx_unit_scale_factor,
            "net_from_gltf": "identity: glTF (x, y, z) -> Blender (x, -z, y) -> FBX (x, y, z); lengths in metres",
            "time": "key time = frame / %d s (FBX ktime = frame * 46186158000 / %d)" % (FPS, FPS),
            "rotations": "Lcl Rotation curves in Euler XYZ degrees (float32 key values)",
        },
        "collada": {
            "export_global_forward_selection": COLLADA_OPTIONS["export_global_forward_selection"],
            "export_global_up_selection": COLLADA_OPTIONS["export_global_up_selection"],
            "apply_global_orientation": COLLADA_OPTIONS["apply_global_orientation"],
            "axes": "none: data in Blender's Z-up space, <up_axis>Z_UP</up_axis>; a reader honouring Z_UP "
                    "maps (x, y, z) -> (x, z, -y), which gives glTF's Y-up world back",
            "unit_scale": 1.0,
            "time": "sampled at each whole frame of the scene range; times written as frame / %d s with about "
                    "7 significant digits (float32), see collada.written.key_times_s" % FPS,
        },
    }


def written_notes(fbx_info, dae_info, baked_frames):
    """What the written files say versus what was asked: key times off the baked frames, leaf bones."""
    notes = []
    if fbx_info:
        exp = [round(f / FPS * 46186158000) for f in baked_frames]
        if fbx_info["key_times_ktime"] != exp:
            notes.append("FBX key times differ from frame/%d: %s" % (FPS, fbx_info["key_times_s"]))
        if any(m["name"].endswith("_end") for m in fbx_info["models"]):
            notes.append("FBX has leaf bones")
    if dae_info:
        exp = [f / FPS for f in baked_frames]
        got = dae_info["key_times_s"]
        if len(got) != len(exp) or any(abs(a - b) > 1e-6 for a, b in zip(got, exp)):
            notes.append("Collada key times are not frame/%d over the scene range: %s" % (FPS, got))
    return notes


def main():
    src, out_dir, name, source = parse_args()
    os.makedirs(out_dir, exist_ok=True)
    fbx_path = os.path.join(out_dir, name + ".fbx")
    dae_path = os.path.join(out_dir, name + ".dae")
    json_path = os.path.join(out_dir, name + ".roundtrip.json")

    doc, read_scalar_floats = read_gltf(src)
    scene = import_into_empty_scene(src)

    changes = []
    gltf_nodes = doc.get("nodes", [])
    vnodes = captured.get("vnodes", {})
    node_map = map_nodes(gltf_nodes, vnodes, changes)
    note_skinned_mesh_moves(gltf_nodes, vnodes, changes)

    # Animations: which clip becomes the exported one.
    anims, clip_name, src_key_times, morph_targets = note_animation_changes(doc, read_scalar_floats, changes)

    actions = active_actions(scene)
    frames_keys = key_frames(actions)
    baked_frames = set_frame_range(scene, frames_keys)
    off_grid = [f for f in frames_keys if snap(f) is None]
    if clip_name:
        scene.name = clip_name
    interp = rotation_nlerp_vs_slerp(actions, baked_frames)

    objects_summary = scene_objects_summary(scene)

    # Export.
    fbx_res = bpy.ops.export_scene.fbx(filepath=fbx_path, check_existing=False, **FBX_OPTIONS)
    dae_res = bpy.ops.wm.collada_export(filepath=dae_path, check_existing=False, **COLLADA_OPTIONS)
    collada_workarounds = fix_collada_bind_shape_matrices(dae_path, scene) if os.path.exists(dae_path) else []

    fbx_info = inspect_fbx(fbx_path) if os.path.exists(fbx_path) else None
    dae_info = inspect_dae(dae_path) if os.path.exists(dae_path) else None

    report = {
        "input": input_summary(src, source, doc, anims, morph_targets, src_key_times),
        "blender": blender_summary(src, name, source),
        "workarounds": workarounds,
        "asked": {
            "import_scene.gltf": IMPORT_OPTIONS,
            "export_scene.fbx": dict(FBX_OPTIONS, object_types=sorted(FBX_OPTIONS["object_types"])),
            "wm.collada_export": COLLADA_OPTIONS,
        },
        "scene": scene_summary(scene, frames_keys, off_grid, baked_frames, interp, actions),
        "conversions": conversions_summary(scene),
        "changes": changes + collada_workarounds,
        "nodes": node_map,
        "blender_objects": objects_summary,
        "fbx": {"file": os.path.basename(fbx_path), "operator_result": sorted(fbx_res), "written": fbx_info},
        "collada": {"file": os.path.basename(dae_path), "operator_result": sorted(dae_res), "written": dae_info},
    }
    report["notes"] = written_notes(fbx_info, dae_info, baked_frames)

    with open(json_path, "w") as f:
        json.dump(report, f, indent=1, sort_keys=False)
        f.write("\n")
    print("roundtrip.py: wrote %s, %s, %s" % (fbx_path, dae_path, json_path))
    if not (fbx_info and dae_info):
        fail("an export failed: fbx %s, collada %s" % (fbx_res, dae_res))

main()
