fn main() {
    print!("{}", nilang::kernel::program_source::<nilang_gpu::kernels::bessel::besselj_batch>());
}
