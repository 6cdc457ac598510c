"""Texture and surface object arguments (`tex:` / `surf:`) for gpu_check.py and
hw_calibrate.py, through the CUDA driver API with ctypes (standard library only).

The syntax and meaning are those of warpjit's runner (src/runtime/texarg.rs):

    tex:GEOM:FORMAT:SIZE:FILE[:OPTION]...     a texture object (CUtexObject)
    surf:GEOM:FORMAT:SIZE:FILE[:out=PATH]     a surface object (CUsurfObject)

- GEOM: `linear` (linear memory, what tex1Dfetch reads), `pitch2d` (rows in linear
  memory, the pitch rounded up to CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT), or a CUDA
  array: `1d`, `2d`, `3d`, `a1d`, `a2d` (layered), `cube`, `acube` (cubemaps, layered
  cubemaps: faces +x -x +y -y +z -z as layers). Surfaces take arrays only.
- FORMAT: TYPExN, TYPE one of u8 s8 u16 s16 u32 s32 f16 f32, N channels 1, 2 or 4.
- SIZE: W, WxH, WxHxD; layered arrays WxL (a1d), WxHxL (a2d); cubemaps W (six WxW
  faces), WxL (acube: L cubemaps).
- FILE: the texels, x fastest, then y, z, layer (exactly the size); `-`: zeros.
- texture OPTIONs: `point` (default) or `linear` filtering; `clamp` (default), `wrap`,
  `mirror` or `border` for every dimension, or `addr=M0,M1,M2` per dimension;
  `border=R,G,B,A` (the border colour, and border addressing); `norm` (normalized
  coordinates); `float` (8- and 16-bit integers read as normalized floats; without it
  integer textures are created with CU_TRSF_READ_AS_INTEGER).
- surface `out=PATH`: the array's texels (dense, as FILE) are an output after the launch.

Arrays are made with cuArray3DCreate_v2 (CUDA_ARRAY3D_SURFACE_LDST for surfaces,
CUDA_ARRAY3D_LAYERED for a1d/a2d/acube, CUDA_ARRAY3D_CUBEMAP for cube/acube) and filled
or read with cuMemcpy2D_v2 (1d, 2d) or cuMemcpy3D_v2 (3d, a1d, a2d, cube, acube); pitch2d memory is filled with cuMemcpy2D_v2; linear and
pitch2d memory starts at a CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT boundary.

Run as a script (`python3 ptx-samples/gen/gpu_objects.py [--libcuda PATH]`), it makes an
object of every geometry, writes random texels and reads them back (no kernel): a quick
check of the copies and descriptors on a driver.
"""
import ctypes
import os

c_uint, c_size_t, c_float, c_int, vp = (ctypes.c_uint, ctypes.c_size_t, ctypes.c_float,
                                        ctypes.c_int, ctypes.c_void_p)

# CUarray_format and the channel's size in bytes
FORMATS = {"u8": (0x01, 1), "u16": (0x02, 2), "u32": (0x03, 4), "s8": (0x08, 1),
           "s16": (0x09, 2), "s32": (0x0a, 4), "f16": (0x10, 2), "f32": (0x20, 4)}
MODES = {"wrap": 0, "clamp": 1, "mirror": 2, "border": 3}   # CUaddress_mode
GEOM_DIMS = {"linear": 1, "1d": 1, "pitch2d": 2, "2d": 2, "a1d": 2, "3d": 3, "a2d": 3,
             "cube": 1, "acube": 2}
ARRAY_GEOMS = ("1d", "2d", "3d", "a1d", "a2d", "cube", "acube")
LAYERED, SURFACE_LDST, CUBEMAP = 0x01, 0x02, 0x04           # CUDA_ARRAY3D_* flags
READ_AS_INTEGER, NORMALIZED_COORDINATES = 0x01, 0x02        # CU_TRSF_*
RES_ARRAY, RES_LINEAR, RES_PITCH2D = 0, 2, 3                # CUresourcetype
MEM_HOST, MEM_DEVICE, MEM_ARRAY = 1, 2, 3                   # CUmemorytype


def parse(kind, rest, spec):
    """`rest` is the part after `tex:`/`surf:` (kind "tex"/"surf"). Returns a dict:
    surface, geom, channel, channels, texel (bytes), size [w, h, d, layers (0: none)],
    bytes, file (None: zeros), out, linear, address [3], border [4], norm, float."""
    surface = kind == "surf"

    def bad(msg):
        return ValueError("argument %r: %s" % (spec, msg))
    parts = rest.split(":")
    if len(parts) < 4:
        raise bad("expected %s:GEOM:FORMAT:SIZE:FILE[:OPTION]..." % kind)
    geom, fmt, size, path = parts[:4]
    if geom not in GEOM_DIMS or (surface and geom not in ARRAY_GEOMS):
        raise bad("%r is not a geometry (linear pitch2d 1d 2d 3d a1d a2d cube acube; surfaces: arrays)" % geom)
    ty, _, n = fmt.partition("x")
    if ty not in FORMATS or n not in ("1", "2", "4"):
        raise bad("%r is not a format (TYPExN: f32x1, u8x4, ...)" % fmt)
    try:
        dims = [int(d) for d in size.split("x")]
    except ValueError:
        dims = [0]
    if min(dims) <= 0 or not all(d.isdigit() for d in size.split("x")):
        raise bad("%r is not a size (W, WxH, WxHxD)" % size)
    if len(dims) != GEOM_DIMS[geom]:
        raise bad("%s takes a size of %d number(s)" % (geom, GEOM_DIMS[geom]))
    if geom == "a1d":
        sz = [dims[0], 1, 1, dims[1]]
    elif geom == "a2d":
        sz = [dims[0], dims[1], 1, dims[2]]
    elif geom == "cube":
        sz = [dims[0], dims[0], 1, 6]
    elif geom == "acube":
        sz = [dims[0], dims[0], 1, 6 * dims[1]]
    else:
        sz = (dims + [1, 1])[:3] + [0]
    o = {"surface": surface, "geom": geom, "channel": ty, "channels": int(n),
         "texel": FORMATS[ty][1] * int(n), "size": sz, "file": None if path == "-" else path,
         "out": None, "linear": False, "address": [1, 1, 1], "border": [0.0] * 4,
         "norm": False, "float": False}
    o["bytes"] = sz[0] * sz[1] * sz[2] * max(sz[3], 1) * o["texel"]
    for opt in parts[4:]:
        key, _, value = opt.partition("=")
        if surface and key == "out" and value:
            o["out"] = value
        elif surface:
            raise bad("unknown option %r (surfaces take out=PATH)" % opt)
        elif opt in ("point", "linear"):
            o["linear"] = opt == "linear"
        elif opt == "norm":
            o["norm"] = True
        elif opt == "float":
            o["float"] = True
        elif key == "addr" and value:
            modes = value.split(",")
            if not 1 <= len(modes) <= 3 or any(m not in MODES for m in modes):
                raise bad("%r: addr=M0[,M1[,M2]] of clamp wrap mirror border" % opt)
            for d, m in enumerate(modes):
                o["address"][d] = MODES[m]
        elif key == "border" and value:
            try:
                c = [float(v) for v in value.split(",")]
            except ValueError:
                c = []
            if len(c) != 4:
                raise bad("%r: border=R,G,B,A" % opt)
            o["border"] = c
            o["address"] = [MODES["border"]] * 3
        elif opt in MODES:
            o["address"] = [MODES[opt]] * 3
        else:
            raise bad("unknown option %r (point linear clamp wrap mirror border addr=.. "
                      "border=R,G,B,A norm float)" % opt)
    return o


def load_data(sdir, o):
    """The object's initial texels (bytes), checked against its size."""
    if o["file"] is None:
        return bytes(o["bytes"])
    with open(os.path.join(sdir, o["file"]), "rb") as f:
        data = f.read()
    if len(data) != o["bytes"]:
        raise ValueError("%s: %d bytes; a %s %s of %d-byte texels is %d" % (
            o["file"], len(data), o["geom"], "x".join(map(str, o["size"])), o["texel"], o["bytes"]))
    return data


# ----------------------------------------------------------------------------------
# cuda.h 12.x/13.x structures (x86-64: ctypes pads each pointer/size_t to 8 bytes, as C)

class ARRAY3D_DESCRIPTOR(ctypes.Structure):
    _fields_ = [("Width", c_size_t), ("Height", c_size_t), ("Depth", c_size_t),
                ("Format", c_uint), ("NumChannels", c_uint), ("Flags", c_uint)]


class MEMCPY2D(ctypes.Structure):
    _fields_ = [("srcXInBytes", c_size_t), ("srcY", c_size_t), ("srcMemoryType", c_uint),
                ("srcHost", vp), ("srcDevice", ctypes.c_uint64), ("srcArray", vp),
                ("srcPitch", c_size_t),
                ("dstXInBytes", c_size_t), ("dstY", c_size_t), ("dstMemoryType", c_uint),
                ("dstHost", vp), ("dstDevice", ctypes.c_uint64), ("dstArray", vp),
                ("dstPitch", c_size_t),
                ("WidthInBytes", c_size_t), ("Height", c_size_t)]


class MEMCPY3D(ctypes.Structure):
    _fields_ = [("srcXInBytes", c_size_t), ("srcY", c_size_t), ("srcZ", c_size_t),
                ("srcLOD", c_size_t), ("srcMemoryType", c_uint), ("srcHost", vp),
                ("srcDevice", ctypes.c_uint64), ("srcArray", vp), ("reserved0", vp),
                ("srcPitch", c_size_t), ("srcHeight", c_size_t),
                ("dstXInBytes", c_size_t), ("dstY", c_size_t), ("dstZ", c_size_t),
                ("dstLOD", c_size_t), ("dstMemoryType", c_uint), ("dstHost", vp),
                ("dstDevice", ctypes.c_uint64), ("dstArray", vp), ("reserved1", vp),
                ("dstPitch", c_size_t), ("dstHeight", c_size_t),
                ("WidthInBytes", c_size_t), ("Height", c_size_t), ("Depth", c_size_t)]


class _ResLinear(ctypes.Structure):
    _fields_ = [("devPtr", ctypes.c_uint64), ("format", c_uint), ("numChannels", c_uint),
                ("sizeInBytes", c_size_t)]


class _ResPitch2D(ctypes.Structure):
    _fields_ = [("devPtr", ctypes.c_uint64), ("format", c_uint), ("numChannels", c_uint),
                ("width", c_size_t), ("height", c_size_t), ("pitchInBytes", c_size_t)]


class _ResUnion(ctypes.Union):
    _fields_ = [("hArray", vp), ("linear", _ResLinear), ("pitch2D", _ResPitch2D),
                ("reserved", c_int * 32)]


class RESOURCE_DESC(ctypes.Structure):
    _fields_ = [("resType", c_uint), ("res", _ResUnion), ("flags", c_uint)]


class TEXTURE_DESC(ctypes.Structure):
    _fields_ = [("addressMode", c_uint * 3), ("filterMode", c_uint), ("flags", c_uint),
                ("maxAnisotropy", c_uint), ("mipmapFilterMode", c_uint),
                ("mipmapLevelBias", c_float), ("minMipmapLevelClamp", c_float),
                ("maxMipmapLevelClamp", c_float), ("borderColor", c_float * 4),
                ("reserved", c_int * 12)]


class LAUNCH_ATTRIBUTE(ctypes.Structure):
    """CUlaunchAttribute: the id, padded to 8 bytes, then a 64-byte value union (here the
    cluster dimension's unsigned x, y, z, or the cooperative int)."""
    _fields_ = [("id", c_uint), ("pad", c_uint), ("value", c_uint * 16)]


class LAUNCH_CONFIG(ctypes.Structure):
    _fields_ = [("gridDimX", c_uint), ("gridDimY", c_uint), ("gridDimZ", c_uint),
                ("blockDimX", c_uint), ("blockDimY", c_uint), ("blockDimZ", c_uint),
                ("sharedMemBytes", c_uint), ("hStream", vp),
                ("attrs", ctypes.POINTER(LAUNCH_ATTRIBUTE)), ("numAttrs", c_uint)]


for _s, _n in ((ARRAY3D_DESCRIPTOR, 40), (MEMCPY2D, 128), (MEMCPY3D, 200), (RESOURCE_DESC, 144),
               (TEXTURE_DESC, 104), (LAUNCH_ATTRIBUTE, 72), (LAUNCH_CONFIG, 56)):
    if ctypes.sizeof(_s) != _n and ctypes.sizeof(vp) == 8:
        raise ImportError("%s is %d bytes, cuda.h's is %d" % (_s.__name__, ctypes.sizeof(_s), _n))


def bind(lib):
    """Sets the argument types of the entry points used here (once per library)."""
    if getattr(lib, "_gpu_objects_bound", False):
        return
    P = ctypes.POINTER
    for name, args in (
            ("cuArray3DCreate_v2", [P(vp), P(ARRAY3D_DESCRIPTOR)]), ("cuArrayDestroy", [vp]),
            ("cuMemcpy2D_v2", [P(MEMCPY2D)]), ("cuMemcpy3D_v2", [P(MEMCPY3D)]),
            ("cuTexObjectCreate", [P(ctypes.c_uint64), P(RESOURCE_DESC), P(TEXTURE_DESC), vp]),
            ("cuTexObjectDestroy", [ctypes.c_uint64]),
            ("cuSurfObjectCreate", [P(ctypes.c_uint64), P(RESOURCE_DESC)]),
            ("cuSurfObjectDestroy", [ctypes.c_uint64]),
            ("cuDeviceGetAttribute", [P(c_int), c_int, c_int]), ("cuCtxGetDevice", [P(c_int)]),
            ("cuLaunchKernelEx", [P(LAUNCH_CONFIG), vp, P(vp), P(vp)])):
        if hasattr(lib, name):  # an entry point the driver lacks fails where it is called
            getattr(lib, name).argtypes = args
    lib._gpu_objects_bound = True


def device_attr(cu, attr, default):
    dev, v = c_int(), c_int()
    if cu.lib.cuCtxGetDevice(ctypes.byref(dev)) != 0:
        return default
    if cu.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, dev.value) != 0 or v.value <= 0:
        return default
    return v.value


def launch_ex(cu, func, grid, block, shared, stream, kparams, cluster=None, cooperative=False):
    """cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4) and/or
    CU_LAUNCH_ATTRIBUTE_COOPERATIVE (2); returns its result code."""
    bind(cu.lib)
    attrs = (LAUNCH_ATTRIBUTE * 2)()
    n = 0
    if cluster:
        attrs[n].id = 4
        attrs[n].value[0], attrs[n].value[1], attrs[n].value[2] = [int(c) for c in cluster]
        n += 1
    if cooperative:
        attrs[n].id = 2
        attrs[n].value[0] = 1
        n += 1
    cfg = LAUNCH_CONFIG(grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                        stream, ctypes.cast(attrs, ctypes.POINTER(LAUNCH_ATTRIBUTE)), n)
    return cu.lib.cuLaunchKernelEx(ctypes.byref(cfg), func, kparams, None)


class DeviceObject:
    """A texture or surface object made from a parse()d spec: its array or memory and the
    object. `handle` is the kernel argument. reset() writes the initial texels (call it
    before the first launch), read() returns the texels (dense, as the file), free()
    destroys the object and frees its memory."""

    def __init__(self, cu, o, data):
        bind(cu.lib)
        self.cu, self.o, self.data = cu, o, data
        self.array = None
        self.alloc = None       # (allocation, aligned start) of linear/pitch2d memory
        self.handle = None
        L = cu.lib
        w, h, d, layers = o["size"]
        fmt = FORMATS[o["channel"]][0]
        self.row = w * o["texel"]
        res = RESOURCE_DESC()
        try:
            if o["geom"] in ARRAY_GEOMS:
                desc = ARRAY3D_DESCRIPTOR(
                    w, 0 if o["geom"] in ("1d", "a1d") else h,
                    d if o["geom"] == "3d" else layers,
                    fmt, o["channels"],
                    (LAYERED if layers and o["geom"] != "cube" else 0)
                    | (CUBEMAP if o["geom"] in ("cube", "acube") else 0)
                    | (SURFACE_LDST if o["surface"] else 0))
                arr = vp()
                cu.check(L.cuArray3DCreate_v2(ctypes.byref(arr), ctypes.byref(desc)),
                         "cuArray3DCreate(%s %s)" % (o["geom"], "x".join(map(str, o["size"]))))
                self.array = arr.value
                res.resType = RES_ARRAY
                res.res.hArray = self.array
            else:
                # CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT (14), _TEXTURE_PITCH_ALIGNMENT (51)
                align = device_attr(cu, 14, 512)
                self.pitch = self.row
                if o["geom"] == "pitch2d":
                    pa = device_attr(cu, 51, 32)
                    self.pitch = (self.row + pa - 1) // pa * pa
                size = self.pitch * h
                p = ctypes.c_uint64()
                cu.check(L.cuMemAlloc_v2(ctypes.byref(p), size + align), "cuMemAlloc(texture)")
                self.alloc = (p.value, (p.value + align - 1) // align * align)
                cu.check(L.cuMemsetD8_v2(p.value, 0, size + align), "cuMemsetD8(texture)")
                if o["geom"] == "linear":
                    res.resType = RES_LINEAR
                    res.res.linear = _ResLinear(self.alloc[1], fmt, o["channels"], size)
                else:
                    res.resType = RES_PITCH2D
                    res.res.pitch2D = _ResPitch2D(self.alloc[1], fmt, o["channels"], w, h,
                                                  self.pitch)
            hnd = ctypes.c_uint64()
            if o["surface"]:
                cu.check(L.cuSurfObjectCreate(ctypes.byref(hnd), ctypes.byref(res)),
                         "cuSurfObjectCreate")
            else:
                td = TEXTURE_DESC()
                for i in range(3):
                    td.addressMode[i] = o["address"][i]
                td.filterMode = 1 if o["linear"] else 0
                if o["channel"][0] in "us" and not o["float"]:
                    td.flags |= READ_AS_INTEGER
                if o["norm"]:
                    td.flags |= NORMALIZED_COORDINATES
                for i in range(4):
                    td.borderColor[i] = o["border"][i]
                cu.check(L.cuTexObjectCreate(ctypes.byref(hnd), ctypes.byref(res),
                                             ctypes.byref(td), None), "cuTexObjectCreate")
            self.handle = hnd.value
        except BaseException:
            self.free()
            raise

    def _copy(self, to_device, host):
        """The texels between `host` (a ctypes buffer) and the object's memory."""
        L, o = self.cu.lib, self.o
        w, h, d, layers = o["size"]
        if o["geom"] == "linear":
            if to_device:
                return self.cu.check(L.cuMemcpyHtoD_v2(self.alloc[1], host, o["bytes"]),
                                     "cuMemcpyHtoD(texture)")
            return self.cu.check(L.cuMemcpyDtoH_v2(host, self.alloc[1], o["bytes"]),
                                 "cuMemcpyDtoH(texture)")
        hostp = ctypes.cast(host, vp).value
        if o["geom"] in ("pitch2d", "1d", "2d"):
            c = MEMCPY2D()
            dev = "dst" if to_device else "src"
            hst = "src" if to_device else "dst"
            setattr(c, hst + "MemoryType", MEM_HOST)
            setattr(c, hst + "Host", hostp)
            setattr(c, hst + "Pitch", self.row)
            if self.array is not None:
                setattr(c, dev + "MemoryType", MEM_ARRAY)
                setattr(c, dev + "Array", self.array)
            else:
                setattr(c, dev + "MemoryType", MEM_DEVICE)
                setattr(c, dev + "Device", self.alloc[1])
                setattr(c, dev + "Pitch", self.pitch)
            c.WidthInBytes, c.Height = self.row, h
            return self.cu.check(L.cuMemcpy2D_v2(ctypes.byref(c)), "cuMemcpy2D(%s)" % o["geom"])
        c = MEMCPY3D()
        dev = "dst" if to_device else "src"
        hst = "src" if to_device else "dst"
        setattr(c, hst + "MemoryType", MEM_HOST)
        setattr(c, hst + "Host", hostp)
        setattr(c, hst + "Pitch", self.row)
        setattr(c, hst + "Height", h)
        setattr(c, dev + "MemoryType", MEM_ARRAY)
        setattr(c, dev + "Array", self.array)
        c.WidthInBytes, c.Height, c.Depth = self.row, h, d if o["geom"] == "3d" else layers
        return self.cu.check(L.cuMemcpy3D_v2(ctypes.byref(c)), "cuMemcpy3D(%s)" % o["geom"])

    def reset(self):
        buf = ctypes.create_string_buffer(self.data, max(len(self.data), 1))
        self._copy(True, buf)

    def read(self):
        buf = ctypes.create_string_buffer(max(self.o["bytes"], 1))
        self._copy(False, buf)
        return buf.raw[:self.o["bytes"]]

    def free(self):
        L = self.cu.lib
        if self.handle is not None:
            (L.cuSurfObjectDestroy if self.o["surface"] else L.cuTexObjectDestroy)(self.handle)
            self.handle = None
        if self.array is not None:
            L.cuArrayDestroy(self.array)
            self.array = None
        if self.alloc is not None:
            L.cuMemFree_v2(self.alloc[0])
            self.alloc = None


# ----------------------------------------------------------------------------------
# round trips (no kernel): python3 ptx-samples/gen/gpu_objects.py [--libcuda PATH]

ROUND_TRIPS = [
    "tex:linear:u8x1:37:-", "tex:pitch2d:u16x2:13x5:-", "tex:1d:f32x4:9:-",
    "tex:2d:s8x4:7x3:-:float", "tex:3d:f16x2:5x4x3:-:linear:norm:addr=wrap,mirror,clamp",
    "tex:a1d:u32x1:6x4:-", "tex:a2d:s16x1:5x3x4:-:border=1,2,3,4", "surf:1d:u8x4:10:-:out=o",
    "surf:2d:f32x1:10x3:-", "surf:3d:u32x2:4x3x2:-", "surf:a1d:u16x1:8x3:-",
    "surf:a2d:u8x2:6x2x3:-", "tex:cube:f32x1:4:-:linear", "tex:acube:u8x4:2x3:-:float",
    "surf:cube:f32x2:4:-",
]


def main():
    """Makes an object of every geometry (ROUND_TRIPS), writes random texels, reads them
    back and compares: the array, pitched and linear copies and object creation through
    the driver, no kernel. Exit status 0 when every round trip matched."""
    import argparse
    import random
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gpu_check
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--libcuda", help="load this driver library instead of libcuda.so.1")
    args = ap.parse_args()
    cu = gpu_check.Cuda(args.libcuda)
    res = {}
    gpu_check.open_device(cu, res)
    rng = random.Random(1)
    bad = 0
    for spec in ROUND_TRIPS:
        kind, _, rest = spec.partition(":")
        o = parse(kind, rest, spec)
        data = bytes(bytearray(rng.randrange(256) for _ in range(o["bytes"])))
        try:
            obj = DeviceObject(cu, o, data)
            try:
                obj.reset()
                ok = obj.read() == data
            finally:
                obj.free()
            msg = "" if ok else "read back differs"
        except gpu_check.CudaError as e:
            ok, msg = False, str(e)
        bad += not ok
        print("%-4s %-58s %5d bytes %s" % ("ok" if ok else "BAD", spec, o["bytes"], msg))
    print("round trips on %s: %d of %d ok" % (res.get("device"), len(ROUND_TRIPS) - bad,
                                              len(ROUND_TRIPS)))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
