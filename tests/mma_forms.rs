//! The `mma.sync` forms beyond f16/bf16/tf32, `movmatrix` and the `wgmma`
//! forms (A in registers, tf32, fp8, integers) load as one matrix micro-op
//! each; the forms not executed are load errors at their line and column.

use warpjit::front::{self, SourceFile};

const HEADER: &str = ".version 8.4\n.target sm_90a\n.address_size 64\n";

fn module(body: &str) -> String {
    format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<10>;\n\t.reg .f64 %fd<30>;\n\t.reg .f32 %f<20>;\n\t.reg .pred %p<3>;\n{body}\n\tret;\n}}\n"
    )
}

const FORMS: &[(&str, &str)] = &[
    ("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r11,%r12,%r13,%r14};", "Mma"),
    ("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r9}, {%r11,%r12,%r13,%r14};", "Mma"),
    ("mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32 {%r1,%r2}, {%r3}, {%r4}, {%r5,%r6};", "Mma"),
    ("mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r11,%r12,%r13,%r14};", "Mma"),
    ("mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.s4.s32 {%r1,%r2}, {%r3}, {%r4}, {%r5,%r6};", "Mma"),
    ("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r11,%r12,%r13,%r14};", "Mma"),
    ("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%r1,%r2}, {%r3}, {%r4}, {%r5,%r6};", "Mma"),
    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1,%fd2}, {%fd3}, {%fd4}, {%fd5,%fd6};", "Mma"),
    ("mma.sync.aligned.m8n8k4.row.col.rz.f64.f64.f64.f64 {%fd1,%fd2}, {%fd3}, {%fd4}, {%fd5,%fd6};", "Mma"),
    ("mma.sync.aligned.m16n8k8.row.col.rp.f64.f64.f64.f64 {%fd1,%fd2,%fd3,%fd4}, {%fd5,%fd6,%fd7,%fd8}, {%fd9,%fd10}, {%fd11,%fd12,%fd13,%fd14};", "Mma"),
    ("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%fd1,%fd2,%fd3,%fd4}, {%fd5,%fd6,%fd7,%fd8,%fd9,%fd10,%fd11,%fd12}, {%fd13,%fd14,%fd15,%fd16}, {%fd17,%fd18,%fd19,%fd20};", "Mma"),
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1,%f2,%f3,%f4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%f5,%f6,%f7,%f8};", "Mma"),
    ("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r1,%r2}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r3,%r4};", "Mma"),
    ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, {%r1,%r2}, {%r3,%r4}, {%f9,%f10,%f11,%f12,%f13,%f14,%f15,%f16};", "Mma"),
    ("mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, {%r1,%r2}, {%r3,%r4}, {%r5,%r6,%r7,%r8};", "Mma"),
    ("mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f16 {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r7,%r8}, {%r9,%r10,%r11,%r12};", "Mma"),
    ("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;", "Movmatrix"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, %rd1, %p1, 1, 1, 1;", "Wgmma"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r5,%r6}, %rd1, %rd2, %p1, 1, -1, 0, 1;", "Wgmma"),
    ("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1;", "Wgmma"),
    ("wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e4m3 {%r5,%r6}, {%r1,%r2,%r3,%r4}, %rd2, %p1, -1, 1;", "Wgmma"),
    ("wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.u8 {%r5,%r6,%r7,%r8}, %rd1, %rd2, %p1;", "Wgmma"),
];

#[test]
fn every_form_lowers_to_one_matrix_op() {
    for (form, op) in FORMS {
        let text = module(&format!("\t{form}"));
        let ast = front::parse_str("m.ptx", &text).unwrap_or_else(|e| panic!("{form}: {e}"));
        let source = SourceFile::new("m.ptx", text.clone());
        let ir = warpjit::ir::lower::run(&ast, &source).unwrap_or_else(|e| panic!("{form}: {e}"));
        warpjit::ir::verify::run(&ir).unwrap();
        let ir_text = warpjit::ir::text::module_to_string(&ir);
        assert_eq!(
            ir_text.matches(&format!("= {op}")).count(),
            1,
            "{form}:\n{ir_text}"
        );
    }
}

/// Loads `form` and returns the rendered errors (the statement is on line 11).
fn load_error(form: &str) -> String {
    let text = module(&format!("\t{form}"));
    let source = SourceFile::new("m.ptx", text.clone());
    let ast = match front::parse(&source) {
        Ok(ast) => ast,
        Err(e) => return e.to_string(),
    };
    match warpjit::ir::lower::run(&ast, &source) {
        Ok(_) => panic!("`{form}` loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn forms_not_executed_are_errors_at_their_line() {
    let cases = [
        // Volta's m8n8k4: f16 inputs only, accumulator counts follow C/D.
        ("mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, {%r1,%r2}, {%r3,%r4}, {%f9,%f10,%f11,%f12,%f13,%f14,%f15,%f16};", "unsupported"),
        ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3,%r4}, {%f9,%f10,%f11,%f12,%f13,%f14,%f15,%f16};", "expected {...} with 8 registers"),
        // An f16 D with an f32 C: ptxas refuses it (".dtype must be '.f32'").
        ("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r7,%r8}, {%f9,%f10,%f11,%f12,%f13,%f14,%f15,%f16};", "unsupported"),
        // Shapes and types the ISA does not pair.
        ("mma.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r11,%r12,%r13,%r14};", "unsupported"),
        ("mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%f5,%f6,%f7,%f8};", "unsupported"),
        ("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r11,%r12,%r13,%r14};", "unsupported"),
        ("mma.sync.aligned.m16n8k16.row.col.rz.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%f5,%f6,%f7,%f8};", "unsupported"),
        // Register counts follow the form.
        ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r9,%r10}, {%r11,%r12,%r13,%r14};", "expected {...} with 4 registers"),
        ("movmatrix.sync.aligned.m8n8.b16 %r1, %r2;", "unsupported"),
        // Sparse wgmma is not executed.
        ("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;", "unsupported"),
        ("wgmma.mma_async.sync.aligned.m64n8k32.f32.s8.s8 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1;", "unsupported"),
        ("wgmma.mma_async.sync.aligned.m64n8k16.f32.tf32.tf32 {%f1,%f2,%f3,%f4}, %rd1, %rd2, %p1, 1, 1;", "unsupported"),
        ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, %rd1, %p1, 1, 1, 0, 1;", "takes 7 operands, found 8"),
    ];
    for (form, want) in cases {
        let err = load_error(form);
        assert!(err.contains(want), "`{form}`: {err}");
        assert!(err.contains("m.ptx:11:"), "`{form}` not at its line: {err}");
    }
}
