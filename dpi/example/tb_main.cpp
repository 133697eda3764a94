// SPDX-License-Identifier: Apache-2.0

// The C++ harness of ibr_dpi_tb: it drives the clock and reset and nothing
// else; the testbench (stimulus, DPI model, scoreboard) is SystemVerilog.
// Inputs change with the falling edge, away from the sampling edge, as in
// Verilator's examples/make_tracing_c. It prints the simulation's wall time
// and the CPU time the process spent in it (every thread's: the model's too).
#include <verilated.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

#include "Vibr_dpi_tb.h"

int main(int argc, char **argv) {
  const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
  ctx->commandArgs(argc, argv);
  const std::unique_ptr<Vibr_dpi_tb> top{new Vibr_dpi_tb{ctx.get()}};
  top->rst_ni = 0;
  for (int i = 0; i < 4; i++) {
    top->clk_i = 0;
    top->eval();
    top->clk_i = 1;
    top->eval();
  }
  timespec c0, c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  const auto t0 = std::chrono::steady_clock::now();
  while (!ctx->gotFinish()) {
    top->clk_i = 0;
    top->rst_ni = 1;
    top->eval();
    top->clk_i = 1;
    top->eval();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  const double cpu = double(c1.tv_sec - c0.tv_sec) + 1e-9 * double(c1.tv_nsec - c0.tv_nsec);
  top->final();
  std::printf("SECONDS %.6f CPU %.6f\n", secs, cpu);
  return 0;
}
