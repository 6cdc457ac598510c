//! Editing and querying graphs (`graph.rs` holds the graph model and
//! adds nodes): edges (`cuGraphAdd/RemoveDependencies`), the queries
//! (`cuGraphGetNodes`, `GetRootNodes`, `GetEdges`, `cuGraphNodeGetType`, a
//! node's dependencies and dependents) with CUDA's list convention,
//! destroying nodes, cloning, and a kernel node's parameters changed in a
//! graph or an instantiated graph (`cuGraphExecKernelNodeSetParams`,
//! `cuGraphExecUpdate`).

use super::*;
use crate::graph::{find, graph_mut, kernel_ops, Graph, KernelNodeParams, KERNEL};

/// `CUgraphEdgeData`: only the default edge (all zero) exists here.
#[repr(C)]
pub struct EdgeData([u8; 8]);

unsafe fn default_edges(data: *const EdgeData, count: usize) -> Result<(), CUresult> {
    if data.is_null() || (0..count).all(|i| (*data.add(i)).0 == [0; 8]) {
        Ok(())
    } else {
        Err(NOT_SUPPORTED)
    }
}

/// Adds (`add`) or removes the edges `from[i] -> to[i]`.
unsafe fn edges(
    graph: Handle,
    from: *const Handle,
    to: *const Handle,
    data: *const EdgeData,
    count: usize,
    add: bool,
) -> CUresult {
    if count > 0 && (from.is_null() || to.is_null()) {
        return INVALID_VALUE;
    }
    done(default_edges(data, count).and_then(|()| {
        with_state(|s| {
            let g = graph_mut(s, graph)?;
            for i in 0..count {
                let (f, t) = (*from.add(i) as usize, *to.add(i) as usize);
                let (Some(_), Some(ti)) = (g.index(f), g.index(t)) else {
                    return Err(INVALID_VALUE);
                };
                let deps = &mut g.nodes[ti].deps;
                match (add, deps.iter().position(|&d| d == f)) {
                    (true, None) if f != t => deps.push(f),
                    (false, Some(at)) => {
                        deps.remove(at);
                    }
                    _ => return Err(INVALID_VALUE),
                }
            }
            Ok(())
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies(
    graph: Handle,
    from: *const Handle,
    to: *const Handle,
    count: usize,
) -> CUresult {
    edges(graph, from, to, std::ptr::null(), count, true)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies_v2(
    graph: Handle,
    from: *const Handle,
    to: *const Handle,
    data: *const EdgeData,
    count: usize,
) -> CUresult {
    edges(graph, from, to, data, count, true)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphRemoveDependencies(
    graph: Handle,
    from: *const Handle,
    to: *const Handle,
    count: usize,
) -> CUresult {
    edges(graph, from, to, std::ptr::null(), count, false)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphRemoveDependencies_v2(
    graph: Handle,
    from: *const Handle,
    to: *const Handle,
    data: *const EdgeData,
    count: usize,
) -> CUresult {
    edges(graph, from, to, data, count, false)
}

/// CUDA's list convention: with a null array, the count; else up to
/// `*count` entries, the rest of the array nulled, and the number written
/// back.
unsafe fn list(items: &[Handle], out: *mut Handle, count: *mut usize) -> Result<(), CUresult> {
    let n = count.as_mut().ok_or(INVALID_VALUE)?;
    if out.is_null() {
        *n = items.len();
        return Ok(());
    }
    for i in 0..*n {
        *out.add(i) = items.get(i).copied().unwrap_or(std::ptr::null_mut());
    }
    *n = (*n).min(items.len());
    Ok(())
}

/// [`list`] for edges: the sources and destinations (and zeroed edge data).
unsafe fn list_edges(
    pairs: &[(Handle, Handle)],
    from: *mut Handle,
    to: *mut Handle,
    data: *mut EdgeData,
    count: *mut usize,
) -> Result<(), CUresult> {
    let n = count.as_mut().ok_or(INVALID_VALUE)?;
    if from.is_null() && to.is_null() {
        *n = pairs.len();
        return Ok(());
    }
    if from.is_null() || to.is_null() {
        return Err(INVALID_VALUE);
    }
    for i in 0..*n {
        let (f, t) = pairs
            .get(i)
            .copied()
            .unwrap_or((std::ptr::null_mut(), std::ptr::null_mut()));
        *from.add(i) = f;
        *to.add(i) = t;
        if !data.is_null() {
            *data.add(i) = EdgeData([0; 8]);
        }
    }
    *n = (*n).min(pairs.len());
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphGetNodes(
    graph: Handle,
    nodes: *mut Handle,
    count: *mut usize,
) -> CUresult {
    done(with_state(|s| {
        let g = graph_mut(s, graph)?;
        let all: Vec<Handle> = g.nodes.iter().map(|n| n.handle as Handle).collect();
        list(&all, nodes, count)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphGetRootNodes(
    graph: Handle,
    nodes: *mut Handle,
    count: *mut usize,
) -> CUresult {
    done(with_state(|s| {
        let g = graph_mut(s, graph)?;
        let roots: Vec<Handle> = g
            .nodes
            .iter()
            .filter(|n| n.deps.is_empty())
            .map(|n| n.handle as Handle)
            .collect();
        list(&roots, nodes, count)
    }))
}

unsafe fn get_edges(
    graph: Handle,
    from: *mut Handle,
    to: *mut Handle,
    data: *mut EdgeData,
    count: *mut usize,
) -> CUresult {
    done(with_state(|s| {
        let g = graph_mut(s, graph)?;
        let pairs: Vec<(Handle, Handle)> = g
            .nodes
            .iter()
            .flat_map(|n| n.deps.iter().map(|&d| (d as Handle, n.handle as Handle)))
            .collect();
        list_edges(&pairs, from, to, data, count)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphGetEdges(
    graph: Handle,
    from: *mut Handle,
    to: *mut Handle,
    count: *mut usize,
) -> CUresult {
    get_edges(graph, from, to, std::ptr::null_mut(), count)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphGetEdges_v2(
    graph: Handle,
    from: *mut Handle,
    to: *mut Handle,
    data: *mut EdgeData,
    count: *mut usize,
) -> CUresult {
    get_edges(graph, from, to, data, count)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetType(node: Handle, kind: *mut c_int) -> CUresult {
    done(with_state(|s| {
        let (g, i) = find(s, node)?;
        out(kind, s.sched.graphs[&g].nodes[i].kind)
    }))
}

/// A node's dependencies (`dependents` false) or the nodes depending on it.
unsafe fn neighbours(
    node: Handle,
    dependents: bool,
    nodes: *mut Handle,
    data: *mut EdgeData,
    count: *mut usize,
) -> CUresult {
    done(with_state(|s| {
        let (g, i) = find(s, node)?;
        let graph = &s.sched.graphs[&g];
        let found: Vec<Handle> = match dependents {
            false => graph.nodes[i].deps.iter().map(|&d| d as Handle).collect(),
            true => graph
                .nodes
                .iter()
                .filter(|n| n.deps.contains(&(node as usize)))
                .map(|n| n.handle as Handle)
                .collect(),
        };
        if !data.is_null() && !nodes.is_null() {
            for k in 0..*count {
                *data.add(k) = EdgeData([0; 8]);
            }
        }
        list(&found, nodes, count)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependencies(
    node: Handle,
    deps: *mut Handle,
    count: *mut usize,
) -> CUresult {
    neighbours(node, false, deps, std::ptr::null_mut(), count)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependencies_v2(
    node: Handle,
    deps: *mut Handle,
    data: *mut EdgeData,
    count: *mut usize,
) -> CUresult {
    neighbours(node, false, deps, data, count)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependentNodes(
    node: Handle,
    nodes: *mut Handle,
    count: *mut usize,
) -> CUresult {
    neighbours(node, true, nodes, std::ptr::null_mut(), count)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetDependentNodes_v2(
    node: Handle,
    nodes: *mut Handle,
    data: *mut EdgeData,
    count: *mut usize,
) -> CUresult {
    neighbours(node, true, nodes, data, count)
}

/// Removes the node and its edges.
#[no_mangle]
pub unsafe extern "C" fn cuGraphDestroyNode(node: Handle) -> CUresult {
    done(with_state(|s| {
        let (g, i) = find(s, node)?;
        let graph = graph_mut(s, g as Handle)?;
        graph.nodes.remove(i);
        for n in &mut graph.nodes {
            n.deps.retain(|&d| d != node as usize);
        }
        Ok(())
    }))
}

/// A copy with nodes of its own (the same ops and edges).
#[no_mangle]
pub unsafe extern "C" fn cuGraphClone(clone: *mut Handle, original: Handle) -> CUresult {
    if clone.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let mut g = graph_mut(s, original)?.clone();
        let map: Vec<(usize, usize)> = g.nodes.iter().map(|n| (n.handle, s.handle())).collect();
        let new = |h: usize| map.iter().find(|m| m.0 == h).map_or(h, |m| m.1);
        for n in &mut g.nodes {
            n.handle = new(n.handle);
            n.deps.iter_mut().for_each(|d| *d = new(*d));
        }
        let h = s.handle();
        s.sched.graphs.insert(h, g);
        *clone = h as Handle;
        Ok(())
    }))
}

/// Kernel node `node`'s graph and index, with the ops new parameters make.
unsafe fn new_kernel_ops(
    s: &mut State,
    node: Handle,
    p: *const KernelNodeParams,
    v2: bool,
) -> Result<(usize, usize, Vec<crate::ops::Node>), CUresult> {
    let (g, i) = find(s, node)?;
    if s.sched.graphs[&g].nodes[i].kind != KERNEL {
        return Err(INVALID_VALUE);
    }
    Ok((g, i, kernel_ops(s, p, v2)?))
}

unsafe fn set_kernel(node: Handle, p: *const KernelNodeParams, v2: bool) -> CUresult {
    done(with_state(|s| {
        let (g, i, ops) = new_kernel_ops(s, node, p, v2)?;
        graph_mut(s, g as Handle)?.nodes[i].ops = ops;
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetParams(
    node: Handle,
    p: *const KernelNodeParams,
) -> CUresult {
    set_kernel(node, p, false)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeSetParams_v2(
    node: Handle,
    p: *const KernelNodeParams,
) -> CUresult {
    set_kernel(node, p, true)
}

unsafe fn exec_set_kernel(
    exec: Handle,
    node: Handle,
    p: *const KernelNodeParams,
    v2: bool,
) -> CUresult {
    done(with_state(|s| {
        let (_, _, ops) = new_kernel_ops(s, node, p, v2)?;
        let e = s
            .sched
            .execs
            .get_mut(&(exec as usize))
            .ok_or(INVALID_HANDLE)?;
        e.replace(node as usize, ops)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams(
    exec: Handle,
    node: Handle,
    p: *const KernelNodeParams,
) -> CUresult {
    exec_set_kernel(exec, node, p, false)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    exec: Handle,
    node: Handle,
    p: *const KernelNodeParams,
) -> CUresult {
    exec_set_kernel(exec, node, p, true)
}

/// `CUgraphExecUpdateResult`.
const UPDATE_SUCCESS: c_int = 0;
const UPDATE_TOPOLOGY_CHANGED: c_int = 2;
const UPDATE_NODE_TYPE_CHANGED: c_int = 3;

/// `CUgraphExecUpdateResultInfo`.
#[repr(C)]
pub struct UpdateResultInfo {
    result: c_int,
    error_node: Handle,
    error_from_node: Handle,
}

/// Gives the executable graph the nodes' parameters of `graph`, which
/// must have its source's topology: the same number of nodes, added in
/// the same order, of the same types, with the same edges. The result
/// and the first node that differs.
unsafe fn update(exec: Handle, graph: Handle) -> Result<(c_int, Handle), CUresult> {
    with_state(|s| {
        let g = s.sched.graphs.get(&(graph as usize)).ok_or(INVALID_VALUE)?;
        let e = s.sched.execs.get(&(exec as usize)).ok_or(INVALID_HANDLE)?;
        let old = &e.source;
        if old.nodes.len() != g.nodes.len() {
            return Ok((UPDATE_TOPOLOGY_CHANGED, std::ptr::null_mut()));
        }
        let position = |graph: &Graph, h: usize| graph.index(h);
        for (a, b) in old.nodes.iter().zip(&g.nodes) {
            if a.kind != b.kind {
                return Ok((UPDATE_NODE_TYPE_CHANGED, b.handle as Handle));
            }
            let da: Vec<_> = a.deps.iter().map(|&d| position(old, d)).collect();
            let db: Vec<_> = b.deps.iter().map(|&d| position(g, d)).collect();
            if da != db {
                return Ok((UPDATE_TOPOLOGY_CHANGED, b.handle as Handle));
            }
        }
        // The executable keeps its own nodes' handles (what later
        // cuGraphExec*SetParams calls name), with the new ops.
        let mut source = old.clone();
        for (n, new) in source.nodes.iter_mut().zip(&g.nodes) {
            n.ops = new.ops.clone();
        }
        let (nodes, spans) = source.schedule()?;
        let e = s
            .sched
            .execs
            .get_mut(&(exec as usize))
            .ok_or(INVALID_HANDLE)?;
        e.set(source, nodes, spans);
        Ok((UPDATE_SUCCESS, std::ptr::null_mut()))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecUpdate_v2(
    exec: Handle,
    graph: Handle,
    info: *mut UpdateResultInfo,
) -> CUresult {
    let Some(info) = info.as_mut() else {
        return INVALID_VALUE;
    };
    match update(exec, graph) {
        Ok((result, node)) => {
            *info = UpdateResultInfo {
                result,
                error_node: node,
                error_from_node: std::ptr::null_mut(),
            };
            // CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
            if result == UPDATE_SUCCESS {
                SUCCESS
            } else {
                910
            }
        }
        Err(e) => e,
    }
}

/// CUDA 11's form: the error node and the result through two pointers.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecUpdate(
    exec: Handle,
    graph: Handle,
    error_node: *mut Handle,
    result: *mut c_int,
) -> CUresult {
    let mut info = UpdateResultInfo {
        result: 0,
        error_node: std::ptr::null_mut(),
        error_from_node: std::ptr::null_mut(),
    };
    let r = cuGraphExecUpdate_v2(exec, graph, &mut info);
    if let Some(e) = error_node.as_mut() {
        *e = info.error_node;
    }
    if let Some(o) = result.as_mut() {
        *o = info.result;
    }
    r
}
