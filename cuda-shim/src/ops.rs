//! The work a stream executes (`Op`): kernel launches (with the optional
//! `WARPJIT_TIMING` report), copies, memsets, host functions, event
//! records and event waits, and how each one runs against warpjit's
//! `Device`. Graph nodes (`Node`) are the ops a capture recorded, plus
//! event record and wait nodes, which refer to an event at replay.

use super::*;
use warpjit::runtime::ModuleId;

/// A host pointer carried to a worker thread. The client guarantees the
/// memory stays valid until the stream reaches the op (CUDA's rule for
/// asynchronous copies and host functions).
#[derive(Clone, Copy)]
pub(crate) struct HostPtr(pub *mut c_void);

// SAFETY: the pointer is only dereferenced by the worker executing the op,
// under the client's guarantee above; shared copies (in graphs) are
// addresses only.
unsafe impl Send for HostPtr {}
unsafe impl Sync for HostPtr {}

/// `CUhostFn`.
pub(crate) type HostFn = unsafe extern "C" fn(*mut c_void);
/// `CUstreamCallback`: (stream, status, user data).
pub(crate) type StreamCallback = unsafe extern "C" fn(Handle, CUresult, *mut c_void);

/// A kernel launch with its parameter bytes copied at enqueue (as CUDA
/// copies them when `cuLaunchKernel` is called).
#[derive(Clone)]
pub(crate) struct KernelLaunch {
    pub module: ModuleId,
    pub kernel: FuncId,
    pub config: LaunchConfig,
    pub params: Vec<u8>,
    /// `WARPJIT_TIMING`'s preset name, checked at enqueue.
    pub timing: Option<String>,
    /// A cooperative launch: how many blocks can be resident at once.
    pub cooperative: Option<u64>,
    /// A launch in thread-block clusters of this shape (checked at the
    /// call).
    pub cluster: Option<warpjit::runtime::ClusterLaunch>,
}

#[derive(Clone)]
pub(crate) enum Op {
    Launch(Box<KernelLaunch>),
    /// Host-to-device from a staging copy (pageable source, copied at enqueue).
    WriteStaged {
        dst: u64,
        data: Vec<u8>,
    },
    /// Host-to-device read from the source when the op executes
    /// (page-locked source, or a graph node).
    WriteFromHost {
        dst: u64,
        src: HostPtr,
        len: usize,
    },
    /// Device-to-host, written when the op executes.
    Read {
        src: u64,
        dst: HostPtr,
        len: usize,
    },
    DeviceCopy {
        dst: u64,
        src: u64,
        len: usize,
    },
    /// `count` elements of `width` bytes (1, 2 or 4) set to `value`.
    Memset {
        dst: u64,
        value: u32,
        width: usize,
        count: usize,
    },
    HostFunc {
        f: HostFn,
        data: HostPtr,
    },
    Callback {
        f: StreamCallback,
        stream: usize,
        data: HostPtr,
    },
    /// Stamps the event's completion time if it is still this record.
    RecordEvent {
        event: usize,
        generation: u64,
    },
    /// Does nothing: the item's dependencies are the wait.
    Wait,
    /// Frees a device allocation (`cuMemFreeAsync`; the worker does it
    /// with the state, `queue::execute`).
    Free {
        dptr: u64,
    },
}

/// A captured graph node.
#[derive(Clone)]
pub(crate) enum Node {
    Op(Op),
    /// `cuEventRecordWithFlags(CU_EVENT_RECORD_EXTERNAL)` in a capture:
    /// records the event each time the graph runs.
    RecordEvent(usize),
    /// `cuStreamWaitEvent(CU_EVENT_WAIT_EXTERNAL)` in a capture: waits for
    /// the event's latest record each time the graph runs.
    WaitEvent(usize),
}

/// How an op failed: the code, and whether it is a kernel fault (which
/// leaves the context's sticky error, as on a GPU).
pub(crate) struct OpError {
    pub code: CUresult,
    pub fault: bool,
}

fn device_error(e: &warpjit::Error) -> OpError {
    OpError {
        code: errors::code_of(e),
        fault: matches!(e, warpjit::Error::Launch(_)),
    }
}

impl Op {
    /// Runs a device op (anything but host functions and callbacks, which
    /// the worker runs without the state lock).
    pub(crate) fn run(&self, device: &Device) -> Result<(), OpError> {
        match self {
            Op::Launch(l) => launch(device, l),
            Op::WriteStaged { dst, data } => device.write(*dst, data).map_err(|e| device_error(&e)),
            Op::WriteFromHost { dst, src, len } => {
                // SAFETY: the client keeps the page-locked source valid
                // until the copy executes; `len` was given with it.
                let data = unsafe { std::slice::from_raw_parts(src.0 as *const u8, *len) };
                device.write(*dst, data).map_err(|e| device_error(&e))
            }
            Op::Read { src, dst, len } => {
                // SAFETY: as above, for the destination.
                let out = unsafe { std::slice::from_raw_parts_mut(dst.0 as *mut u8, *len) };
                device.read(*src, out).map_err(|e| device_error(&e))
            }
            Op::DeviceCopy { dst, src, len } => {
                let mut buf = vec![0u8; *len];
                device.read(*src, &mut buf).map_err(|e| device_error(&e))?;
                device.write(*dst, &buf).map_err(|e| device_error(&e))
            }
            Op::Memset {
                dst,
                value,
                width,
                count,
            } => {
                if *width == 1 {
                    device
                        .memset(*dst, *value as u8, *count as u64)
                        .map_err(|e| device_error(&e))
                } else {
                    let element = &value.to_le_bytes()[..*width];
                    let data: Vec<u8> = (0..*count).flat_map(|_| element.iter().copied()).collect();
                    device.write(*dst, &data).map_err(|e| device_error(&e))
                }
            }
            Op::HostFunc { .. }
            | Op::Callback { .. }
            | Op::RecordEvent { .. }
            | Op::Wait
            | Op::Free { .. } => Ok(()),
        }
    }
}

/// Runs a kernel (timed with the cycle model when `WARPJIT_TIMING` names
/// a preset, the report going to stderr) and prints its printf output and
/// its sanitizer reports.
fn launch(device: &Device, l: &KernelLaunch) -> Result<(), OpError> {
    // A checked launch (WARPJIT_CHECK) is not timed: the sanitizer runs
    // on the interpreter, the timing model on its own driver.
    let timing = l
        .timing
        .as_deref()
        .filter(|_| !device.checks().any())
        .and_then(|name| Arch::builtin(name).ok());
    let result = launch_on(device, l, timing);
    crate::sanitizer::print_reports(device);
    result
}

fn launch_on(device: &Device, l: &KernelLaunch, timing: Option<Arch>) -> Result<(), OpError> {
    let report = match timing {
        Some(_) if l.cluster.is_some() => {
            let e = warpjit::Error::InvalidCluster("timed launches have no clusters".into());
            return Err(device_error(&e));
        }
        Some(arch) => {
            let t = warpjit::runtime::TimingOptions::new(arch);
            let (report, timing) = device
                .launch_timed(l.module, l.kernel, l.config, &l.params, &t)
                .map_err(|e| device_error(&e))?;
            let kernel = &device.ir(l.module).functions[l.kernel].name;
            eprint!("warpjit: {kernel}: {}", timing.to_text(&|_| String::new()));
            report
        }
        None => match (l.cooperative, l.cluster) {
            (Some(resident), _) => {
                device.launch_cooperative(l.module, l.kernel, l.config, &l.params, resident)
            }
            (None, Some(c)) => device.launch_cluster(l.module, l.kernel, l.config, &l.params, c),
            (None, None) => device.launch(l.module, l.kernel, l.config, &l.params),
        }
        .map_err(|e| device_error(&e))?,
    };
    print!("{}", report.printf);
    if report.printf_dropped > 0 {
        eprintln!(
            "warpjit: the printf buffer is full: the output of {} printf calls was dropped",
            report.printf_dropped
        );
    }
    Ok(())
}
