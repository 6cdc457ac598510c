//! Host copies into and out of device memory (`Device::write`/`read`, what
//! every `cuMemcpy*` of the driver library ends in), against a plain
//! `copy_from_slice` of the same bytes in the same run: the floor a copy
//! that moves each byte once can reach. 400 KB (cudarc's copy test) and
//! 16 MB, aligned and one byte off.
//! `cargo bench --bench host_copy`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use warpjit::runtime::{Device, Options};

fn host_copy(c: &mut Criterion) {
    let mut group = c.benchmark_group("host_copy");
    for bytes in [400_000usize, 16 << 20] {
        let mut dev = Device::new(Options::default());
        let addr = dev.alloc(bytes as u64 + 8).unwrap();
        let src: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
        let mut dst = vec![0u8; bytes];
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(BenchmarkId::new("memcpy (baseline)", bytes), |b| {
            b.iter(|| dst.copy_from_slice(std::hint::black_box(&src)))
        });
        for skew in [0u64, 1] {
            group.bench_function(
                BenchmarkId::new(format!("device write +{skew}"), bytes),
                |b| b.iter(|| dev.write(addr + skew, std::hint::black_box(&src)).unwrap()),
            );
            group.bench_function(
                BenchmarkId::new(format!("device read +{skew}"), bytes),
                |b| b.iter(|| dev.read(addr + skew, &mut dst).unwrap()),
            );
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2));
    targets = host_copy
}
criterion_main!(benches);
