// Fuzzes what the Slurm agent reads of goodput jobs (docs/slurm.md, "Goodput jobs"), files a user's
// job writes: each line of the input as a metrics report (ParseGoodputReport), and the whole input
// as an allocation (DecodeGoodputAlloc, what a restarted agent reads back from its journal). A
// report it accepts must be in range (the checks the agent's model relies on); an allocation it
// accepts must encode and decode to itself.
#include <cmath>
#include <string>

#include "fuzz_common.h"
#include "hetsched/slurm/goodput_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hetsched;
  const std::string_view text = fuzz::AsText(data, size);
  size_t start = 0;
  int number = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    auto report = slurm::ParseGoodputReport(line, "job.metrics:" + std::to_string(++number));
    fuzz::CheckMessage(report.status());
    if (report.ok()) {
      const slurm::GoodputReport& r = *report;
      fuzz::Check(r.gpus >= r.nodes && r.nodes >= 1 && r.local_bsz >= 1 && r.accum_steps >= 0,
                  "an accepted report's counts are in range");
      fuzz::Check(std::isfinite(r.accum_step_s) && r.accum_step_s > 0 && std::isfinite(r.optim_step_s) &&
                      r.optim_step_s > 0 && std::isfinite(r.progress) && r.progress >= 0,
                  "an accepted report's times and progress are finite and in range");
      fuzz::Check(!r.grad || (std::isfinite(r.grad->sqr) && r.grad->sqr >= 0 && std::isfinite(r.grad->var) &&
                              r.grad->var >= 0),
                  "an accepted report's gradient statistics are finite and >= 0");
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  auto alloc = slurm::DecodeGoodputAlloc(text, "job.alloc");
  fuzz::CheckMessage(alloc.status());
  if (alloc.ok()) {
    auto back = slurm::DecodeGoodputAlloc(slurm::EncodeGoodputAlloc(*alloc), "re-encoded");
    if (!back.ok()) fuzz::Fail("an accepted allocation does not re-decode", back.status().message());
    fuzz::Check(back->job == alloc->job && back->type == alloc->type && back->placement == alloc->placement &&
                    back->nodes == alloc->nodes && back->batch_size == alloc->batch_size &&
                    back->local_bsz == alloc->local_bsz && back->accum_steps == alloc->accum_steps &&
                    back->adaptive == alloc->adaptive && back->restarts == alloc->restarts && back->seq == alloc->seq,
                "an accepted allocation re-decodes to itself");
  }
  return 0;
}
