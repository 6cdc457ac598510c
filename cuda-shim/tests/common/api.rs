//! The entry points the C-ABI tests of streams, events and graphs use,
//! resolved once with NVRTC's saxpy loaded ([`api`]), and a host function
//! that holds a stream until released ([`hold`]).

use std::ffi::{c_char, c_int, c_uint, c_void, CString};

use libloading::{Library, Symbol};

use super::{library, repo, Handle, Launch};

pub type HostFn = unsafe extern "C" fn(*mut c_void);

/// The entry points the stream tests use, resolved once.
pub struct Api {
    pub _lib: Library,
    pub ctx_create: unsafe extern "C" fn(*mut Handle, c_uint, c_int) -> u32,
    pub ctx_destroy: unsafe extern "C" fn(Handle) -> u32,
    pub ctx_synchronize: unsafe extern "C" fn() -> u32,
    pub alloc: unsafe extern "C" fn(*mut u64, usize) -> u32,
    pub htod: unsafe extern "C" fn(u64, *const c_void, usize) -> u32,
    pub dtoh: unsafe extern "C" fn(*mut c_void, u64, usize) -> u32,
    pub htod_async: unsafe extern "C" fn(u64, *const c_void, usize, Handle) -> u32,
    pub dtoh_async: unsafe extern "C" fn(*mut c_void, u64, usize, Handle) -> u32,
    pub memset32_async: unsafe extern "C" fn(u64, c_uint, usize, Handle) -> u32,
    pub host_alloc: unsafe extern "C" fn(*mut *mut c_void, usize, c_uint) -> u32,
    pub free_host: unsafe extern "C" fn(*mut c_void) -> u32,
    pub launch: Launch,
    pub host_func: unsafe extern "C" fn(Handle, Option<HostFn>, *mut c_void) -> u32,
    pub stream_create: unsafe extern "C" fn(*mut Handle, c_uint) -> u32,
    pub stream_destroy: unsafe extern "C" fn(Handle) -> u32,
    pub stream_synchronize: unsafe extern "C" fn(Handle) -> u32,
    pub stream_query: unsafe extern "C" fn(Handle) -> u32,
    pub stream_wait: unsafe extern "C" fn(Handle, Handle, c_uint) -> u32,
    pub event_create: unsafe extern "C" fn(*mut Handle, c_uint) -> u32,
    pub event_record: unsafe extern "C" fn(Handle, Handle) -> u32,
    pub event_query: unsafe extern "C" fn(Handle) -> u32,
    pub event_synchronize: unsafe extern "C" fn(Handle) -> u32,
    pub event_elapsed: unsafe extern "C" fn(*mut f32, Handle, Handle) -> u32,
    pub event_destroy: unsafe extern "C" fn(Handle) -> u32,
    pub begin_capture: unsafe extern "C" fn(Handle, c_int) -> u32,
    pub end_capture: unsafe extern "C" fn(Handle, *mut Handle) -> u32,
    pub is_capturing: unsafe extern "C" fn(Handle, *mut c_int) -> u32,
    pub instantiate: unsafe extern "C" fn(*mut Handle, Handle, u64) -> u32,
    pub graph_launch: unsafe extern "C" fn(Handle, Handle) -> u32,
    pub exec_destroy: unsafe extern "C" fn(Handle) -> u32,
    pub graph_destroy: unsafe extern "C" fn(Handle) -> u32,
    /// NVRTC's saxpy from the corpus: `y = a * x + y` over `n` floats.
    pub saxpy: Handle,
}

/// cuInit, the primary context current, saxpy loaded, and the entry points.
pub fn api() -> Api {
    let lib = library();
    macro_rules! f {
        ($name:literal) => {{
            // SAFETY: the field's type is the entry point's C signature.
            let s: Symbol<_> = unsafe { lib.get($name) }.unwrap();
            *s
        }};
    }
    let init: unsafe extern "C" fn(c_uint) -> u32 = f!(b"cuInit");
    let retain: unsafe extern "C" fn(*mut Handle, c_int) -> u32 = f!(b"cuDevicePrimaryCtxRetain");
    let set_current: unsafe extern "C" fn(Handle) -> u32 = f!(b"cuCtxSetCurrent");
    let load: unsafe extern "C" fn(*mut Handle, *const c_void) -> u32 = f!(b"cuModuleLoadData");
    let get_fn: unsafe extern "C" fn(*mut Handle, Handle, *const c_char) -> u32 =
        f!(b"cuModuleGetFunction");
    let path = repo().join("ptx-samples/cuda/saxpy/kernel.compute_80.ptx");
    let ptx = CString::new(std::fs::read(path).unwrap()).unwrap();
    let name = CString::new("_Z5saxpyifPKfPf").unwrap();
    let mut saxpy: Handle = std::ptr::null_mut();
    // SAFETY: the driver API's calling sequence, with valid pointers.
    unsafe {
        assert_eq!(init(0), 0);
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(retain(&mut ctx, 0), 0);
        assert_eq!(set_current(ctx), 0);
        let mut module: Handle = std::ptr::null_mut();
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(get_fn(&mut saxpy, module, name.as_ptr()), 0);
    }
    Api {
        ctx_create: f!(b"cuCtxCreate_v2"),
        ctx_destroy: f!(b"cuCtxDestroy_v2"),
        ctx_synchronize: f!(b"cuCtxSynchronize"),
        alloc: f!(b"cuMemAlloc_v2"),
        htod: f!(b"cuMemcpyHtoD_v2"),
        dtoh: f!(b"cuMemcpyDtoH_v2"),
        htod_async: f!(b"cuMemcpyHtoDAsync_v2"),
        dtoh_async: f!(b"cuMemcpyDtoHAsync_v2"),
        memset32_async: f!(b"cuMemsetD32Async"),
        host_alloc: f!(b"cuMemHostAlloc"),
        free_host: f!(b"cuMemFreeHost"),
        launch: f!(b"cuLaunchKernel"),
        host_func: f!(b"cuLaunchHostFunc"),
        stream_create: f!(b"cuStreamCreate"),
        stream_destroy: f!(b"cuStreamDestroy_v2"),
        stream_synchronize: f!(b"cuStreamSynchronize"),
        stream_query: f!(b"cuStreamQuery"),
        stream_wait: f!(b"cuStreamWaitEvent"),
        event_create: f!(b"cuEventCreate"),
        event_record: f!(b"cuEventRecord"),
        event_query: f!(b"cuEventQuery"),
        event_synchronize: f!(b"cuEventSynchronize"),
        event_elapsed: f!(b"cuEventElapsedTime"),
        event_destroy: f!(b"cuEventDestroy_v2"),
        begin_capture: f!(b"cuStreamBeginCapture_v2"),
        end_capture: f!(b"cuStreamEndCapture"),
        is_capturing: f!(b"cuStreamIsCapturing"),
        instantiate: f!(b"cuGraphInstantiateWithFlags"),
        graph_launch: f!(b"cuGraphLaunch"),
        exec_destroy: f!(b"cuGraphExecDestroy"),
        graph_destroy: f!(b"cuGraphDestroy"),
        saxpy,
        _lib: lib,
    }
}

const NON_BLOCKING: c_uint = 1;
pub const CAPTURE_THREAD_LOCAL: c_int = 1;

impl Api {
    pub unsafe fn stream(&self) -> Handle {
        let mut s: Handle = std::ptr::null_mut();
        assert_eq!((self.stream_create)(&mut s, NON_BLOCKING), 0);
        s
    }

    pub unsafe fn event(&self, flags: c_uint) -> Handle {
        let mut e: Handle = std::ptr::null_mut();
        assert_eq!((self.event_create)(&mut e, flags), 0);
        e
    }

    /// A device buffer holding `values`. (A synchronous copy from pageable
    /// memory returns once the source is staged; the legacy stream is
    /// synchronized before non-blocking streams use the buffer.)
    pub unsafe fn buffer(&self, values: &[f32]) -> u64 {
        let mut d = 0u64;
        assert_eq!((self.alloc)(&mut d, values.len() * 4), 0);
        assert_eq!((self.htod)(d, values.as_ptr() as _, values.len() * 4), 0);
        assert_eq!((self.stream_synchronize)(std::ptr::null_mut()), 0);
        d
    }

    pub unsafe fn read(&self, d: u64, n: usize) -> Vec<f32> {
        let mut v = vec![0f32; n];
        assert_eq!((self.dtoh)(v.as_mut_ptr() as _, d, n * 4), 0);
        v
    }

    /// Enqueues `y = a * x + y` (n floats) on `stream`; the launch's result.
    pub unsafe fn saxpy(&self, n: c_int, a: f32, x: u64, y: u64, stream: Handle) -> u32 {
        let mut args: [*mut c_void; 4] = [
            &n as *const c_int as *mut c_void,
            &a as *const f32 as *mut c_void,
            &x as *const u64 as *mut c_void,
            &y as *const u64 as *mut c_void,
        ];
        let grid = (n as u32).div_ceil(256);
        let null = std::ptr::null_mut();
        (self.launch)(
            self.saxpy,
            grid,
            1,
            1,
            256,
            1,
            1,
            0,
            stream,
            args.as_mut_ptr(),
            null,
        )
    }
}

/// A host function that holds its stream until the test sends on the
/// channel (its data is a boxed receiver it takes ownership of).
pub unsafe extern "C" fn hold_until_released(data: *mut c_void) {
    let receiver = Box::from_raw(data as *mut std::sync::mpsc::Receiver<()>);
    let _ = receiver.recv_timeout(std::time::Duration::from_secs(60));
}

/// Holds `stream` with a host function; the sender releases it.
pub unsafe fn hold(api: &Api, stream: Handle) -> std::sync::mpsc::Sender<()> {
    let (release, receiver) = std::sync::mpsc::channel::<()>();
    let data = Box::into_raw(Box::new(receiver)) as *mut c_void;
    assert_eq!((api.host_func)(stream, Some(hold_until_released), data), 0);
    release
}
