//go:build !amd64

package kernel

const haveAVX512 = false

func parityAVX512(ds []uint32, recs []uint32, out1, out2 []int64, quad bool, mask uint32) {
	panic("kernel: no AVX-512 kernel on this architecture")
}

func sipAVX512(init *[4]uint64, ds []uint32, recs []uint32, out1, out2 []int64, swap bool) {
	panic("kernel: no AVX-512 kernel on this architecture")
}
