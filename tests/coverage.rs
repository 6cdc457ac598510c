//! docs/ptx-coverage.md mentions every opcode the parser knows.

mod common;

use warpjit::front::ast::Opcode;

#[test]
fn coverage_doc_lists_every_opcode() {
    let doc = common::read(&common::repo_root().join("docs/ptx-coverage.md"));
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .map(|o| o.name())
        .filter(|n| {
            !doc.contains(&format!("`{n}`"))
                && !doc.contains(&format!("`{n}."))
                && !doc.contains(&format!("`{n} "))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ptx-coverage.md does not mention: {missing:?}"
    );
}

/// Every instruction of PTX ISA 8.8, by the headings of its chapter 9.7
/// (each mnemonic as the ISA's section title spells it).
const ISA_8_8_INSTRUCTIONS: &str = "
    add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind fns brev bfe bfi szext bmsk dp4a dp2a
    add.cc addc sub.cc subc mad.cc madc
    testp copysign fma rcp rcp.approx.ftz.f64 sqrt rsqrt rsqrt.approx.ftz.f64 sin cos lg2 ex2 tanh
    set setp selp slct
    and or xor not cnot lop3 shf shl shr
    mov shfl shfl.sync prmt ld ld.global.nc ldu st st.async st.bulk multimem.ld_reduce multimem.st multimem.red
    prefetch prefetchu applypriority discard createpolicy isspacep cvta cvt cvt.pack mapa getctarank
    cp.async cp.async.commit_group cp.async.wait_group cp.async.wait_all cp.async.bulk cp.reduce.async.bulk
    cp.async.bulk.prefetch cp.async.bulk.tensor cp.reduce.async.bulk.tensor cp.async.bulk.prefetch.tensor
    cp.async.bulk.commit_group cp.async.bulk.wait_group tensormap.replace
    tex tld4 txq istypep suld sust sured suq
    bra brx.idx call ret exit
    bar barrier bar.warp.sync barrier.cluster membar fence atom red red.async vote vote.sync match.sync
    activemask redux.sync griddepcontrol elect.sync mbarrier tensormap.cp_fenceproxy
    clusterlaunchcontrol.try_cancel clusterlaunchcontrol.query_cancel
    wmma.load wmma.store wmma.mma mma mma.sp ldmatrix stmatrix movmatrix
    wgmma.mma_async wgmma.mma_async.sp wgmma.fence wgmma.commit_group wgmma.wait_group
    tcgen05.alloc tcgen05.dealloc tcgen05.relinquish_alloc_permit tcgen05.ld tcgen05.st tcgen05.wait tcgen05.cp
    tcgen05.shift tcgen05.mma tcgen05.mma.sp tcgen05.mma.ws tcgen05.commit tcgen05.fence
    stacksave stackrestore alloca
    vadd vsub vabsdiff vmin vmax vshl vshr vmad vset
    vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4
    brkpt nanosleep pmevent trap setmaxnreg
";

/// Blackwell-only (sm_100 and later) families: their rows say so.
const BLACKWELL_ONLY: &[&str] = &["tcgen05", "clusterlaunchcontrol", "st.bulk"];

fn mentions(doc: &str, name: &str) -> bool {
    ["`", ".", " "]
        .iter()
        .any(|end| doc.contains(&format!("`{name}{end}")))
}

#[test]
fn every_ptx_8_8_instruction_is_parsed_and_has_a_row() {
    let doc = common::read(&common::repo_root().join("docs/ptx-coverage.md"));
    let parsed: Vec<&str> = Opcode::ALL.iter().map(|o| o.name()).collect();
    let mut problems = Vec::new();
    for name in ISA_8_8_INSTRUCTIONS.split_whitespace() {
        let mnemonic = name.split('.').next().unwrap();
        if !mentions(&doc, name) {
            problems.push(format!("`{name}` has no row in docs/ptx-coverage.md"));
        }
        if !parsed.contains(&mnemonic) {
            problems.push(format!("the parser does not know `{mnemonic}`"));
        }
        if BLACKWELL_ONLY.iter().any(|b| name.starts_with(b)) {
            let row = doc.lines().find(|l| mentions(l, name)).unwrap_or("");
            if !row.contains("Blackwell") {
                problems.push(format!("`{name}`'s row does not say it is Blackwell-only"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Every special register of PTX ISA 8.8 (chapter 10) with its type.
const SPECIAL_REGISTERS: &[(&str, &str)] = &[
    ("%tid.x", "u32"),
    ("%tid.y", "u32"),
    ("%tid.z", "u32"),
    ("%ntid.x", "u32"),
    ("%ntid.y", "u32"),
    ("%ntid.z", "u32"),
    ("%laneid", "u32"),
    ("%warpid", "u32"),
    ("%nwarpid", "u32"),
    ("%ctaid.x", "u32"),
    ("%ctaid.y", "u32"),
    ("%ctaid.z", "u32"),
    ("%nctaid.x", "u32"),
    ("%nctaid.y", "u32"),
    ("%nctaid.z", "u32"),
    ("%smid", "u32"),
    ("%nsmid", "u32"),
    ("%gridid", "u64"),
    ("%is_explicit_cluster", "pred"),
    ("%clusterid.x", "u32"),
    ("%clusterid.y", "u32"),
    ("%clusterid.z", "u32"),
    ("%nclusterid.x", "u32"),
    ("%nclusterid.y", "u32"),
    ("%nclusterid.z", "u32"),
    ("%cluster_ctaid.x", "u32"),
    ("%cluster_ctaid.y", "u32"),
    ("%cluster_ctaid.z", "u32"),
    ("%cluster_nctaid.x", "u32"),
    ("%cluster_nctaid.y", "u32"),
    ("%cluster_nctaid.z", "u32"),
    ("%cluster_ctarank", "u32"),
    ("%cluster_nctarank", "u32"),
    ("%lanemask_eq", "u32"),
    ("%lanemask_le", "u32"),
    ("%lanemask_lt", "u32"),
    ("%lanemask_ge", "u32"),
    ("%lanemask_gt", "u32"),
    ("%clock", "u32"),
    ("%clock_hi", "u32"),
    ("%clock64", "u64"),
    ("%pm0", "u32"),
    ("%pm1", "u32"),
    ("%pm2", "u32"),
    ("%pm3", "u32"),
    ("%pm4", "u32"),
    ("%pm5", "u32"),
    ("%pm6", "u32"),
    ("%pm7", "u32"),
    ("%pm0_64", "u64"),
    ("%pm1_64", "u64"),
    ("%pm2_64", "u64"),
    ("%pm3_64", "u64"),
    ("%pm4_64", "u64"),
    ("%pm5_64", "u64"),
    ("%pm6_64", "u64"),
    ("%pm7_64", "u64"),
    ("%envreg0", "u32"),
    ("%envreg1", "u32"),
    ("%envreg2", "u32"),
    ("%envreg31", "u32"),
    ("%globaltimer", "u64"),
    ("%globaltimer_lo", "u32"),
    ("%globaltimer_hi", "u32"),
    ("%reserved_smem_offset_begin", "u32"),
    ("%reserved_smem_offset_end", "u32"),
    ("%reserved_smem_offset_cap", "u32"),
    ("%reserved_smem_offset_0", "u32"),
    ("%reserved_smem_offset_1", "u32"),
    ("%total_smem_size", "u32"),
    ("%aggr_smem_size", "u32"),
    ("%dynamic_smem_size", "u32"),
    ("%current_graph_exec", "u64"),
];

/// Special registers that are refused (`unsupported` at their line), each
/// named in the doc.
const SPECIAL_REGISTERS_REFUSED: &[&str] = &[];

/// Each special register read by a kernel that stores it: it runs on both
/// engines with the same result (the clocks and the timer aside, which
/// only must run), or it is refused at its line and the doc says so.
#[test]
fn every_ptx_8_8_special_register_executes_on_both_engines_or_is_refused() {
    use warpjit::runtime::{Device, Engine, LaunchConfig, Options};
    let doc = common::read(&common::repo_root().join("docs/ptx-coverage.md"));
    let mut problems = Vec::new();
    for &(reg, ty) in SPECIAL_REGISTERS {
        let base = reg.split('.').next().unwrap();
        if !doc.contains(&format!("`{base}`")) {
            problems.push(format!("`{base}` is not in docs/ptx-coverage.md"));
        }
        let (read, store) = match ty {
            "pred" => (
                format!("mov.pred %p1, {reg};\n\tselp.u64 %rd2, 1, 0, %p1;"),
                "st.global.u64 [%rd1], %rd2;",
            ),
            "u64" => (
                format!("mov.u64 %rd2, {reg};"),
                "st.global.u64 [%rd1], %rd2;",
            ),
            _ => (format!("mov.u32 %r1, {reg};"), "st.global.u32 [%rd1], %r1;"),
        };
        // Every thread reads the register; thread 0 of each CTA stores
        // its value at out[ctaid.x] (one writer per word: the engines
        // compare CTA by CTA, not whichever CTA stored last).
        let ptx = format!(
            ".version 8.8\n.target sm_90a\n.address_size 64\n\n\
             .visible .entry k(.param .u64 out)\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\
             \t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [out];\n\t{read}\n\
             \t.reg .pred %g;\n\t.reg .b32 %q<3>;\n\t.reg .b64 %a<2>;\n\
             \tmov.u32 %q1, %tid.x;\n\tsetp.ne.u32 %g, %q1, 0;\n\t@%g bra $DONE;\n\
             \tmov.u32 %q2, %ctaid.x;\n\tmul.wide.u32 %a1, %q2, 8;\n\tadd.s64 %rd1, %rd1, %a1;\n\
             \t{store}\n$DONE:\n\tret;\n}}\n"
        );
        let mut results = Vec::new();
        for engine in [Engine::Interp, Engine::Jit] {
            let mut dev = Device::new(Options {
                arena_bytes: 1 << 20,
                engine,
                ..Options::default()
            });
            let m = match dev.load_ptx("sreg.ptx", &ptx) {
                Ok(m) => m,
                Err(e) => {
                    problems.push(format!("{reg}: load: {e}"));
                    break;
                }
            };
            let k = dev.kernel(m, Some("k")).unwrap();
            if let Some(d) = dev.unsupported(m, k) {
                if !SPECIAL_REGISTERS_REFUSED.contains(&base) {
                    problems.push(format!("{reg} is refused: {d}"));
                } else if !d.to_string().contains("sreg.ptx:11:") {
                    problems.push(format!("{reg}: refused without its line: {d}"));
                }
                break;
            }
            if SPECIAL_REGISTERS_REFUSED.contains(&base) {
                problems.push(format!("{reg} runs: take it off SPECIAL_REGISTERS_REFUSED"));
            }
            let out = dev.alloc(16).unwrap();
            let params = out.to_le_bytes();
            let cfg = LaunchConfig {
                grid: [2, 1, 1],
                block: [64, 1, 1],
                shared_bytes: 0,
            };
            match dev.launch(m, k, cfg, &params) {
                Ok(_) => {
                    let mut v = [0u8; 16];
                    dev.read(out, &mut v).unwrap();
                    results.push(v);
                }
                Err(e) => problems.push(format!("{reg} on {engine:?}: {e}")),
            }
        }
        let varies = ["%clock", "%globaltimer"]
            .iter()
            .any(|v| base.starts_with(v));
        if results.len() == 2 && results[0] != results[1] && !varies {
            problems.push(format!("{reg}: the engines disagree: {results:?}"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The families warpjit recognises without modelling their operands are
/// refused at their line with the reason, and only the kernels that use
/// them are refused.
#[test]
fn blackwell_and_multi_gpu_families_are_refused_with_the_reason() {
    let text = ".version 8.8\n.target sm_100a\n.address_size 64\n\n\
        .visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n\
        \ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 32;\n\
        \tst.bulk.weak.shared::cta [%rd1], 128, 0;\n\
        \tmultimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];\n\
        \t@%p1 clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %rd1;\n\tret;\n}\n\
        .visible .entry fine(.param .u64 p)\n{\n\tret;\n}\n";
    let source = warpjit::front::SourceFile::new("b.ptx", text);
    let ast = warpjit::front::parse(&source).unwrap_or_else(|e| panic!("{e}"));
    let err = warpjit::ir::lower::run(&ast, &source).unwrap_err();
    let rendered = err.to_string();
    for (line, what) in [
        (9, "`tcgen05`: Blackwell-only"),
        (10, "`st.bulk`: Blackwell-only"),
        (11, "`multimem`: multicast memory"),
        (12, "`clusterlaunchcontrol`: Blackwell-only"),
    ] {
        assert!(
            rendered.contains(&format!("b.ptx:{line}:")) && rendered.contains(what),
            "{what} at line {line}: {rendered}"
        );
    }
    assert!(err
        .items
        .iter()
        .all(|d| d.kind == warpjit::front::DiagnosticKind::Unsupported));
    let mut dev = warpjit::runtime::Device::new(warpjit::runtime::Options::default());
    let m = dev.load_ptx("b.ptx", text).unwrap();
    assert!(dev
        .unsupported(m, dev.kernel(m, Some("k")).unwrap())
        .is_some());
    assert!(dev
        .unsupported(m, dev.kernel(m, Some("fine")).unwrap())
        .is_none());
}
