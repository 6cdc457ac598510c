//! `cuGetExportTable`: the private interfaces NVIDIA's runtime library
//! (cudart 12.x: nvcc-built programs, CuPy, `cuda.bindings.runtime`) asks
//! the driver for by id, each a table of function pointers.
//!
//! The layouts are undocumented. What is here was learned from tracing
//! cudart 12.9's calls into this library (`WARPJIT_TRACE_LOOKUPS=1` logs
//! every table asked for and every slot called); the tables' sizes and the
//! meaning of their slots are as described by public reimplementations of
//! the driver (ZLUDA's "dark API" notes). The code is this project's own.
//!
//! A table is an array of pointers; in most the first entry is the table's
//! size in bytes rather than a function. Every other entry is a function:
//! the slots cudart's work needs are implemented; each of the rest prints
//! a line naming its table and slot on stderr and returns
//! `CUDA_ERROR_NOT_SUPPORTED`, never a null pointer. An id not listed
//! here is `CUDA_ERROR_NOT_SUPPORTED`.

use super::*;
use crate::entry::trace;
use crate::module::load_fatbin;

/// One table: its id (the 16 bytes as cudart passes them), its name (ours,
/// for the logs), and its entries.
struct Table {
    id: [u8; 16],
    name: &'static str,
    slots: &'static [Slot],
}

/// A table entry: a function, or the table's size.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Slot(*const c_void);

// SAFETY: the entries are function addresses and sizes, never written.
unsafe impl Sync for Slot {}

/// A slot nothing here implements: names itself on stderr.
unsafe extern "C" fn missing<const T: usize, const N: usize>() -> CUresult {
    eprintln!(
        "warpjit: cuGetExportTable: {} slot {N} called; not implemented",
        TABLES[T].name
    );
    NOT_SUPPORTED
}

/// A slot cudart calls that declines here (as when a tool is absent):
/// `CUDA_ERROR_NOT_SUPPORTED`, named on stderr only when tracing.
unsafe extern "C" fn declined<const T: usize, const N: usize>() -> CUresult {
    trace(format_args!("{} slot {N}: declined", TABLES[T].name));
    NOT_SUPPORTED
}

/// `slots!(T, [0 1 … len-1]; size; n => f, …)`: the entries of table `T`
/// (its index in `TABLES`, for the logs), each a `missing` slot but the
/// size (`size`: true when entry 0 holds the table's size in bytes) and
/// the implemented ones.
macro_rules! slots {
    ($t:literal, [$($i:literal)*]; $size:expr; $($n:literal => $f:expr),* $(,)?) => {{
        let mut s = [$(Slot(missing::<$t, $i> as *const c_void)),*];
        if $size {
            s[0] = Slot((s.len() * std::mem::size_of::<usize>()) as *const c_void);
        }
        $( s[$n] = Slot($f as *const c_void); )*
        s
    }};
}

const fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

/// The id `{aabbccdd-eeff-...}` as its 16 bytes in the order written.
const fn id(s: &str) -> [u8; 16] {
    let b = s.as_bytes();
    let mut out = [0u8; 16];
    let (mut i, mut k) = (0, 0);
    while i < b.len() {
        if b[i] == b'-' {
            i += 1;
            continue;
        }
        out[k] = hex(b[i]) << 4 | hex(b[i + 1]);
        k += 1;
        i += 2;
    }
    out
}

static CUDART: [Slot; 13] = slots!(0, [0 1 2 3 4 5 6 7 8 9 10 11 12]; true;
    1 => module_from_fatbin,
    2 => primary_context,
    6 => module_from_fatbin_ext,
    7 => cudart_hint,
    8 => module_from_fatbin_header,
    12 => load_compilers,
);
static TOOLS_TLS: [Slot; 4] = slots!(1, [0 1 2 3]; true;
    2 => declined::<1, 2>,
);
static TOOLS_HOOKS: [Slot; 7] = slots!(2, [0 1 2 3 4 5 6]; true;
    1 => declined::<2, 1>,
    2 => hooks_buffer_1,
    4 => declined::<2, 4>,
    6 => hooks_buffer_2,
);
static CONTEXT_STORAGE: [Slot; 4] = slots!(3, [0 1 2 3]; false;
    0 => storage_put,
    1 => storage_delete,
    2 => storage_get,
);
static CONTEXT_CHECKS: [Slot; 4] = slots!(4, [0 1 2 3]; true;
    2 => context_check,
    3 => zero,
);

static INTEGRITY: [Slot; 3] = slots!(5, [0 1 2]; true;
    1 => integrity_check,
);

static TABLES: [Table; 6] = [
    Table {
        id: id("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"),
        name: "cudart interface",
        slots: &CUDART,
    },
    Table {
        id: id("42d85a81-23f6-cb47-8298-f6e78a3aecdc"),
        name: "tools TLS",
        slots: &TOOLS_TLS,
    },
    Table {
        id: id("a094798c-2e74-2e74-93f2-0800200c0a66"),
        name: "tools runtime callback hooks",
        slots: &TOOLS_HOOKS,
    },
    Table {
        id: id("c693336e-1121-df11-a8c3-68f355d89593"),
        name: "context-local storage",
        slots: &CONTEXT_STORAGE,
    },
    Table {
        id: id("263e8860-7cd2-6143-92f6-bbd5006dfa7e"),
        name: "context checks",
        slots: &CONTEXT_CHECKS,
    },
    Table {
        id: id("d4082055-bde6-704b-8d34-ba123c66e1f2"),
        name: "integrity check",
        slots: &INTEGRITY,
    },
];

/// `cuGetExportTable(table, id)`.
pub(crate) unsafe fn get(table: *mut *const c_void, id: *const c_void) -> CUresult {
    if table.is_null() || id.is_null() {
        return INVALID_VALUE;
    }
    let id = std::slice::from_raw_parts(id as *const u8, 16);
    match TABLES.iter().find(|t| t.id == id) {
        Some(t) => {
            trace(format_args!("cuGetExportTable {id:02x?}: {}", t.name));
            *table = t.slots.as_ptr() as *const c_void;
            SUCCESS
        }
        None => {
            trace(format_args!("cuGetExportTable {id:02x?}: not provided"));
            NOT_SUPPORTED
        }
    }
}

// ---- cudart interface ----------------------------------------------------------

/// Loads the PTX of a fatbin (wrapper or fatbin) as a module of the
/// current context.
unsafe fn load(module: *mut Handle, image: *const c_void) -> CUresult {
    if module.is_null() || image.is_null() {
        return INVALID_VALUE;
    }
    done(context::need_context().and_then(|()| {
        with_state(|s| {
            let h = load_fatbin(s, "registered.fatbin", image)?;
            out(module, h as Handle)
        })
    }))
}

/// Slot 1: the module of a registered fatbin (`__fatBinC_Wrapper_t`).
unsafe extern "C" fn module_from_fatbin(module: *mut Handle, wrapper: *const c_void) -> CUresult {
    trace(format_args!(
        "cudart interface 1: module from fatbin {wrapper:?}"
    ));
    load(module, wrapper)
}

/// Slot 6: as slot 1, with options (ignored).
unsafe extern "C" fn module_from_fatbin_ext(
    module: *mut Handle,
    wrapper: *const c_void,
    _a: *mut c_void,
    _b: *mut c_void,
    _c: c_uint,
) -> CUresult {
    trace(format_args!(
        "cudart interface 6: module from fatbin {wrapper:?}"
    ));
    load(module, wrapper)
}

/// Slot 8: the module of a fatbin given by its header, with options
/// (ignored).
unsafe extern "C" fn module_from_fatbin_header(
    fatbin: *const c_void,
    module: *mut Handle,
    _a: *mut c_void,
    _b: *mut c_void,
    _c: c_uint,
) -> CUresult {
    trace(format_args!(
        "cudart interface 8: module from fatbin {fatbin:?}"
    ));
    load(module, fatbin)
}

/// Slot 2: the device's primary context (not retained).
unsafe extern "C" fn primary_context(ctx: *mut Handle, device: c_int) -> CUresult {
    trace(format_args!(
        "cudart interface 2: primary context of {device}"
    ));
    if device != 0 {
        return INVALID_DEVICE;
    }
    done(with_state(|_| out(ctx, PRIMARY as Handle)))
}

/// Slot 7: called with one word; nothing to do.
unsafe extern "C" fn cudart_hint(_word: usize) {
    trace(format_args!("cudart interface 7 ({_word:#x})"));
}

/// Slot 12: loads the JIT compilers; warpjit's is built in.
unsafe extern "C" fn load_compilers() -> CUresult {
    trace(format_args!("cudart interface 12: load compilers"));
    SUCCESS
}

// ---- Tools callback hooks ------------------------------------------------------

/// A buffer of `N` bytes the runtime may write its hooks' state into.
#[repr(C, align(16))]
struct Buffer<const N: usize>(std::cell::UnsafeCell<[u8; N]>);

// SAFETY: only its address is handed out; the runtime owns its contents.
unsafe impl<const N: usize> Sync for Buffer<N> {}

/// Public reimplementations give the first 1024 machine words; cudart 12.9
/// reads a word at byte 0x6e0 of it during its first call (with 1024
/// bytes here, that read ran past this library's data segment whenever
/// the buffer happened to lie at its end: a segfault in cudart's init).
pub(crate) const HOOKS_1_BYTES: usize = 1024 * 8;
static HOOKS_1: Buffer<HOOKS_1_BYTES> = Buffer(std::cell::UnsafeCell::new([0; HOOKS_1_BYTES]));
static HOOKS_2: Buffer<14> = Buffer(std::cell::UnsafeCell::new([0; 14]));

unsafe fn hand_out<const N: usize>(b: &'static Buffer<N>, ptr: *mut *mut c_void, size: *mut usize) {
    if !ptr.is_null() {
        *ptr = b.0.get() as *mut c_void;
    }
    if !size.is_null() {
        *size = N;
    }
}

/// Slot 2: a zeroed buffer (no tools attached) and its size.
unsafe extern "C" fn hooks_buffer_1(ptr: *mut *mut c_void, size: *mut usize) {
    trace(format_args!("tools runtime callback hooks 2"));
    hand_out(&HOOKS_1, ptr, size)
}

/// Slot 6: a second, smaller one.
unsafe extern "C" fn hooks_buffer_2(ptr: *mut *mut c_void, size: *mut usize) {
    trace(format_args!("tools runtime callback hooks 6"));
    hand_out(&HOOKS_2, ptr, size)
}

// ---- Context-local storage ------------------------------------------------------

/// A context's destructor callback for one key.
type Destructor = Option<unsafe extern "C" fn(Handle, *mut c_void, *mut c_void)>;

/// (context, key) → (value, destructor): what the runtime keeps per
/// context.
static STORAGE: Mutex<BTreeMap<(usize, usize), (usize, usize)>> = Mutex::new(BTreeMap::new());

/// The context named, or the current one for null.
fn context_of(ctx: Handle) -> Result<usize, CUresult> {
    if !ctx.is_null() {
        return Ok(ctx as usize);
    }
    CTX_STACK
        .with(|st| st.borrow().last().copied())
        .ok_or(INVALID_CONTEXT)
}

/// Slot 0: stores a value for (context, key).
unsafe extern "C" fn storage_put(
    ctx: Handle,
    key: *mut c_void,
    value: *mut c_void,
    destructor: Destructor,
) -> CUresult {
    trace(format_args!("context-local storage put {ctx:?} {key:?}"));
    match context_of(ctx) {
        Ok(c) => {
            let d = destructor.map_or(0, |f| f as usize);
            let mut m = STORAGE.lock().unwrap_or_else(|e| e.into_inner());
            m.insert((c, key as usize), (value as usize, d));
            SUCCESS
        }
        Err(e) => e,
    }
}

/// Slot 1: forgets (context, key).
unsafe extern "C" fn storage_delete(ctx: Handle, key: *mut c_void) -> CUresult {
    trace(format_args!("context-local storage delete {ctx:?} {key:?}"));
    match context_of(ctx) {
        Ok(c) => {
            let mut m = STORAGE.lock().unwrap_or_else(|e| e.into_inner());
            m.remove(&(c, key as usize));
            SUCCESS
        }
        Err(e) => e,
    }
}

/// Slot 2: the value stored for (context, key); `CUDA_ERROR_INVALID_HANDLE`
/// when none is.
unsafe extern "C" fn storage_get(
    value: *mut *mut c_void,
    ctx: Handle,
    key: *mut c_void,
) -> CUresult {
    trace(format_args!("context-local storage get {ctx:?} {key:?}"));
    if value.is_null() {
        return INVALID_VALUE;
    }
    match context_of(ctx) {
        Ok(c) => {
            let m = STORAGE.lock().unwrap_or_else(|e| e.into_inner());
            match m.get(&(c, key as usize)) {
                Some(&(v, _)) => {
                    *value = v as *mut c_void;
                    SUCCESS
                }
                None => INVALID_HANDLE,
            }
        }
        Err(e) => e,
    }
}

// ---- Context checks -------------------------------------------------------------

/// Slot 2: a context's flags word for the runtime (0: nothing special).
unsafe extern "C" fn context_check(
    _ctx: Handle,
    word: *mut u32,
    _p: *mut *const c_void,
) -> CUresult {
    trace(format_args!("context checks 2 {_ctx:?}"));
    if !word.is_null() {
        *word = 0;
    }
    SUCCESS
}

/// Slot 3: 0.
unsafe extern "C" fn zero() -> u32 {
    trace(format_args!("context checks 3"));
    0
}

// ---- Integrity check ------------------------------------------------------------

extern "C" {
    fn pthread_self() -> usize;
}

/// Slot 1: the answer to cudart's challenge (`integrity.rs`), computed
/// from what this driver reports of itself and its device.
unsafe extern "C" fn integrity_check(
    version: u32,
    seconds: u64,
    answer: *mut [u64; 2],
) -> CUresult {
    trace(format_args!("integrity check {version} {seconds}"));
    if answer.is_null() {
        return INVALID_VALUE;
    }
    let (mut driver, mut count) = (0, 0);
    let r = device::cuDriverGetVersion(&mut driver);
    if r != SUCCESS {
        return r;
    }
    let r = device::cuDeviceGetCount(&mut count);
    if r != SUCCESS {
        return r;
    }
    let mut devices = Vec::new();
    for d in 0..count {
        let mut id = crate::integrity::DeviceId {
            uuid: [0; 16],
            pci: [0; 3],
        };
        let r = device::cuDeviceGetUuid_v2(id.uuid.as_mut_ptr(), d);
        if r != SUCCESS {
            return r;
        }
        // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, _PCI_BUS_ID, _PCI_DEVICE_ID.
        for (v, attr) in id.pci.iter_mut().zip([50, 33, 34]) {
            let r = device::cuDeviceGetAttribute(v, attr, d);
            if r != SUCCESS {
                return r;
            }
        }
        devices.push(id);
    }
    let challenge = crate::integrity::Challenge {
        driver_version: driver as u32,
        version,
        process: std::process::id(),
        thread: pthread_self() as u32,
        cudart_table: CUDART.as_ptr() as usize,
        check_table: INTEGRITY.as_ptr() as usize,
        check_fn: INTEGRITY[1].0 as usize,
        seconds,
    };
    *answer = crate::integrity::answer(&challenge, &devices);
    SUCCESS
}
