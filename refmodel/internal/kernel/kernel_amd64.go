package kernel

// haveAVX512 says this architecture has the assembly kernel; cpu.AVX512 says
// whether the CPU may run it.
const haveAVX512 = true
