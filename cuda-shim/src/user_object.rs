//! User objects (`cuUserObjectCreate`, `cuUserObjectRetain/Release`,
//! `cuGraphRetainUserObject/ReleaseUserObject`): reference-counted host
//! resources whose destructor runs when the last reference goes. Graphs
//! hold references; instantiating a graph gives the executable graph
//! references of its own to the same objects (as CUDA propagates them), and
//! destroying either drops what it holds. cuda.core keeps its graphs'
//! resources alive this way.
//!
//! Destructors run on the thread that drops the last reference, after the
//! state lock is released (CUDA runs them on a driver thread and forbids
//! CUDA calls in them).

use super::*;

/// `CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`, the flag CUDA requires.
const NO_DESTRUCTOR_SYNC: c_uint = 1;
/// `CU_GRAPH_USER_OBJECT_MOVE`: the graph takes the caller's references.
const MOVE: c_uint = 1;

type Destructor = unsafe extern "C" fn(*mut c_void);

struct UserObject {
    ptr: usize,
    destroy: Destructor,
    refs: u64,
}

/// The user objects and the references graphs and executable graphs hold
/// (`State::user_objects`).
#[derive(Default)]
pub(crate) struct UserObjects {
    objects: BTreeMap<usize, UserObject>,
    /// Graph or executable-graph handle → object → references held.
    held: BTreeMap<usize, BTreeMap<usize, u64>>,
}

/// A destructor to run (outside the state lock).
pub(crate) struct Pending(Vec<(Destructor, usize)>);

impl Pending {
    /// Runs the destructors.
    pub(crate) fn run(self) {
        for (f, ptr) in self.0 {
            // SAFETY: the client's destructor and data, called once as
            // CUDA calls it.
            unsafe { f(ptr as *mut c_void) };
        }
    }
}

impl UserObjects {
    /// Drops `count` references to `obj`; the destructor to run if that
    /// was the last.
    fn release(&mut self, obj: usize, count: u64, out: &mut Pending) -> Result<(), CUresult> {
        let o = self.objects.get_mut(&obj).ok_or(INVALID_VALUE)?;
        if count == 0 || count > o.refs {
            return Err(INVALID_VALUE);
        }
        o.refs -= count;
        if o.refs == 0 {
            let o = self.objects.remove(&obj).expect("looked up above");
            out.0.push((o.destroy, o.ptr));
        }
        Ok(())
    }

    /// `exec`, instantiated from `graph`, holds references to its objects.
    pub(crate) fn instantiated(&mut self, graph: usize, exec: usize) {
        let held = self.held.get(&graph).cloned().unwrap_or_default();
        for (&obj, &n) in &held {
            if let Some(o) = self.objects.get_mut(&obj) {
                o.refs += n;
            }
        }
        if !held.is_empty() {
            self.held.insert(exec, held);
        }
    }

    /// A graph or executable graph goes: the references it held.
    pub(crate) fn dropped(&mut self, holder: usize) -> Pending {
        let mut out = Pending(Vec::new());
        for (obj, n) in self.held.remove(&holder).unwrap_or_default() {
            let _ = self.release(obj, n, &mut out);
        }
        out
    }
}

/// Runs `f` under the state lock, then the destructors it made due.
fn with_releases(f: impl FnOnce(&mut State, &mut Pending) -> Result<(), CUresult>) -> CUresult {
    let mut pending = Pending(Vec::new());
    let r = with_state(|s| f(s, &mut pending));
    pending.run();
    done(r)
}

#[no_mangle]
pub unsafe extern "C" fn cuUserObjectCreate(
    obj: *mut Handle,
    ptr: *mut c_void,
    destroy: Option<Destructor>,
    initial: c_uint,
    flags: c_uint,
) -> CUresult {
    let Some(destroy) = destroy else {
        return INVALID_VALUE;
    };
    if obj.is_null() || initial == 0 || flags != NO_DESTRUCTOR_SYNC {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let h = s.handle();
        s.user_objects.objects.insert(
            h,
            UserObject {
                ptr: ptr as usize,
                destroy,
                refs: initial as u64,
            },
        );
        out(obj, h as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuUserObjectRetain(obj: Handle, count: c_uint) -> CUresult {
    done(with_state(|s| {
        let o = s
            .user_objects
            .objects
            .get_mut(&(obj as usize))
            .ok_or(INVALID_VALUE)?;
        if count == 0 {
            return Err(INVALID_VALUE);
        }
        o.refs += count as u64;
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuUserObjectRelease(obj: Handle, count: c_uint) -> CUresult {
    with_releases(|s, pending| s.user_objects.release(obj as usize, count as u64, pending))
}

/// The graph holds `count` references (new ones, or the caller's with
/// `CU_GRAPH_USER_OBJECT_MOVE`).
#[no_mangle]
pub unsafe extern "C" fn cuGraphRetainUserObject(
    graph: Handle,
    obj: Handle,
    count: c_uint,
    flags: c_uint,
) -> CUresult {
    done(with_state(|s| {
        if !s.sched.graphs.contains_key(&(graph as usize)) {
            return Err(INVALID_VALUE);
        }
        if count == 0 || flags & !MOVE != 0 {
            return Err(INVALID_VALUE);
        }
        let o = s
            .user_objects
            .objects
            .get_mut(&(obj as usize))
            .ok_or(INVALID_VALUE)?;
        if flags & MOVE == 0 {
            o.refs += count as u64;
        }
        *s.user_objects
            .held
            .entry(graph as usize)
            .or_default()
            .entry(obj as usize)
            .or_default() += count as u64;
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphReleaseUserObject(
    graph: Handle,
    obj: Handle,
    count: c_uint,
) -> CUresult {
    with_releases(|s, pending| {
        let held = s
            .user_objects
            .held
            .get_mut(&(graph as usize))
            .and_then(|h| h.get_mut(&(obj as usize)))
            .ok_or(INVALID_VALUE)?;
        if count == 0 || count as u64 > *held {
            return Err(INVALID_VALUE);
        }
        *held -= count as u64;
        s.user_objects.release(obj as usize, count as u64, pending)
    })
}
