package refmodel

import (
	"fmt"
)

// Analytic moments of the estimators, for the statistical battery and the
// simulator. Sections 3.3 and 5.3 of the thesis derive them for the full-ID
// and two-reservoir schemes under an ideal generator and a hash that behaves
// like independent fair coins; the one-reservoir scheme's are derived in
// docs/onereservoir-moments.md (section 6.1 leaves them open). Every formula
// here is confirmed by a seeded Monte Carlo test in moments_test.go.

// A PathClass is a group of packets that share a path length, whether and
// where they cross the link d under study, and which of their hops are
// congested.
type PathClass struct {
	Packets   int64  // packets in the class
	Len       int    // path length l (hops)
	At        int    // position of d on the path, 1..Len; 0 when the path does not cross d
	Congested []bool // Congested[j-1]: hop j is congested for these packets; nil for none
}

func (p PathClass) validate() error {
	if p.Packets < 0 || p.Len < 1 || p.At < 0 || p.At > p.Len {
		return fmt.Errorf("path class %+v: want packets >= 0, length >= 1 and 0 <= at <= length", p)
	}
	if p.Congested != nil && len(p.Congested) != p.Len {
		return fmt.Errorf("path class %+v: %d congestion flags for %d hops", p, len(p.Congested), p.Len)
	}
	return nil
}

func (p PathClass) congested(j int) bool { return p.Congested != nil && p.Congested[j-1] }

// Moments are the means and variances of a link's weighted count W and
// weighted congested count C, and their covariance.
type Moments struct {
	MeanW, VarW float64
	MeanC, VarC float64
	CovWC       float64
}

// FullIDMoments is section 3.3: N packets on paths of length l through e give
// W = l*R, R ~ Binomial(N, 1/l): E[W] = N, Var[W] = N(l-1).
func FullIDMoments(n int64, l int) (mean, variance float64) {
	return float64(n), float64(n) * float64(l-1)
}

// FullIDMomentsMulti is section 3.3's sum over flows of lengths l_i:
// E[W] = sum N_i, Var[W] = sum N_i(l_i - 1).
func FullIDMomentsMulti(n []int64, l []int) (mean, variance float64) {
	for i := range n {
		m, v := FullIDMoments(n[i], l[i])
		mean += m
		variance += v
	}
	return mean, variance
}

// ProbMoments is section 5.3: with Q packets that might have crossed d, N of
// which did, on paths of length l: E[W_d] = N, Var[W_d] = Q*l^2 - N.
func ProbMoments(n, q int64, l int) (mean, variance float64) {
	return float64(n), float64(q)*float64(l)*float64(l) - float64(n)
}

// ProbMomentsMulti is section 5.3's sum over path lengths:
// E[W_d] = sum N_l, Var[W_d] = sum Q_l*l^2 - N_l.
func ProbMomentsMulti(n, q []int64, l []int) (mean, variance float64) {
	for i := range n {
		m, v := ProbMoments(n[i], q[i], l[i])
		mean += m
		variance += v
	}
	return mean, variance
}

// TaylorF is section 3.3's estimate of the congested fraction F = C/W for the
// full-ID scheme: M of N packets on one path of length l congested on g hops
// including e,
//
//	E[F]   ~ M/N + M(l-1)/N^2 - M(l-1)(l-2)/N^3
//	Var[F] ~ (M^2/N^2) * ((g-1)/M + (l-1)/N)
func TaylorF(m, n int64, g, l int) (mean, variance float64) {
	M, N, G, L := float64(m), float64(n), float64(g), float64(l)
	mean = M/N + M*(L-1)/(N*N) - M*(L-1)*(L-2)/(N*N*N)
	variance = M * M / (N * N) * ((G-1)/M + (L-1)/N)
	return mean, variance
}

// TaylorFMulti is the multi-path form of section 3.3: flows i of N_i packets on
// paths of length l_i, M_i of them congested on g_i hops including e.
func TaylorFMulti(m, n []int64, g, l []int) (mean, variance float64) {
	var M, N, s1, s2, s3 float64
	for i := range n {
		M += float64(m[i])
		N += float64(n[i])
		s1 += float64(n[i]) * float64(l[i]-1)
		s2 += float64(n[i]) * float64(l[i]-1) * float64(l[i]-2)
		s3 += float64(m[i]) * float64(g[i]-1)
	}
	mean = M/N + M*s1/(N*N*N) - M*s2/(N*N*N*N)
	variance = M * M / (N * N) * (s3/(M*M) + s1/(N*N))
	return mean, variance
}

// RatioMoments is the second-order (delta-method) estimate of the mean and
// variance of C/W from the moments of C and W, covariance included:
//
//	E[C/W]   ~ mu_C/mu_W - Cov/mu_W^2 + mu_C*Var[W]/mu_W^3
//	Var[C/W] ~ (mu_C/mu_W)^2 * (Var[C]/mu_C^2 + Var[W]/mu_W^2 - 2 Cov/(mu_C mu_W))
func RatioMoments(m Moments) (mean, variance float64) {
	r := m.MeanC / m.MeanW
	mean = r - m.CovWC/(m.MeanW*m.MeanW) + m.MeanC*m.VarW/(m.MeanW*m.MeanW*m.MeanW)
	variance = r * r * (m.VarC/(m.MeanC*m.MeanC) + m.VarW/(m.MeanW*m.MeanW) - 2*m.CovWC/(m.MeanC*m.MeanW))
	return mean, variance
}

// OneReservoirMoments gives the moments of a link's counts W_d and congested
// counts C_d under the one-reservoir scheme (Alg. 8-9), derived in
// docs/onereservoir-moments.md. Every packet in classes is one the receiver
// decodes against d (the Q packets that might have crossed it). sel gives the
// selection of an l-hop path (the hop distribution P and weight w; use
// Config.SelectionFor); with the ideal generator and no saturation, P(j) = 1/l
// and w = l. Per packet, with pi_j = P(j), c_j its congestion flags and a the
// position of d (pi_a = c_a = 0 when it does not cross d):
//
//	E[Y] = w pi_a                 Y: its contribution to W_d
//	E[X] = w pi_a c_a             X: its contribution to C_d
//	E[Y^2] = w^2
//	E[X^2] = E[XY] = w^2 sum_j pi_j c_j
//
// and W_d, C_d are sums over independent packets. Without saturation:
//
//	E[W_d] = N      Var[W_d] = Q l^2 - N           (section 5.3's, unchanged)
//	E[C_d] = M      Var[C_d] = l G - M             G = sum over the Q packets of their congested hops
//	                Cov(W_d, C_d) = l G - M
//
// where M counts the packets congested at d.
func OneReservoirMoments(classes []PathClass, sel func(l int) (Selection, error)) (Moments, error) {
	var m Moments
	for _, c := range classes {
		if err := c.validate(); err != nil {
			return m, err
		}
		s, err := sel(c.Len)
		if err != nil {
			return m, err
		}
		if s.Len != c.Len {
			return m, fmt.Errorf("selection for %d hops has %d", c.Len, s.Len)
		}
		pi := s.Floats()
		w := float64(s.Weight)
		var piA, cA, sumPiC float64
		if c.At > 0 {
			piA = pi[c.At-1]
			if c.congested(c.At) {
				cA = 1
			}
		}
		for j := 1; j <= c.Len; j++ {
			if c.congested(j) {
				sumPiC += pi[j-1]
			}
		}
		n := float64(c.Packets)
		ey, ex := w*piA, w*piA*cA
		m.MeanW += n * ey
		m.MeanC += n * ex
		m.VarW += n * (w*w - ey*ey)
		m.VarC += n * (w*w*sumPiC - ex*ex)
		m.CovWC += n * (w*w*sumPiC - ex*ey)
	}
	return m, nil
}

// TwoReservoirCongestedMoments is the two-reservoir scheme's congested count
// (Alg. 6-7, ideal generator, no saturation): each packet congested on g > 0
// hops samples one of them uniformly and weighs it by g, so
//
//	E[C_d] = M,  Var[C_d] = sum over packets with g > 0 of g^2, minus M.
//
// Packets with no congested hop leave the congested count alone (Alg. 7 line 7).
func TwoReservoirCongestedMoments(classes []PathClass) (mean, variance float64, err error) {
	for _, c := range classes {
		if err := c.validate(); err != nil {
			return 0, 0, err
		}
		g := 0
		for j := 1; j <= c.Len; j++ {
			if c.congested(j) {
				g++
			}
		}
		n := float64(c.Packets)
		if c.At > 0 && c.congested(c.At) {
			mean += n
			variance -= n
		}
		variance += n * float64(g*g)
	}
	return mean, variance, nil
}

// IdealSelection is the selection without saturation: P(j) = 1/l, w = l.
func IdealSelection(l int) (Selection, error) { return Saturation(l, 16, nil) }
