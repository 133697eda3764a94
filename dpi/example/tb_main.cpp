// SPDX-License-Identifier: Apache-2.0

// The C++ harness of ibr_dpi_tb: it drives the clock and reset and nothing
// else; the testbench (stimulus, DPI model, scoreboard) is SystemVerilog.
// Inputs change with the falling edge, away from the sampling edge, as in
// Verilator's examples/make_tracing_c. It prints the simulation's wall time.
#include <verilated.h>

#include <chrono>
#include <cstdio>
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
  const auto t0 = std::chrono::steady_clock::now();
  while (!ctx->gotFinish()) {
    top->clk_i = 0;
    top->rst_ni = 1;
    top->eval();
    top->clk_i = 1;
    top->eval();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  top->final();
  std::printf("SECONDS %.6f\n", secs);
  return 0;
}
