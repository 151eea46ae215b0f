// Fuzzes what the Slurm agent reads from squeue's and scontrol's text outputs: the poll table,
// the per-job text fields, the GRES detail of `scontrol show job -d`, and the small notations
// (host lists, GRES strings, GPU indices, times) every one of them goes through.
#include <vector>

#include "fuzz_common.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/slurm/squeue_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hetsched;
  using namespace hetsched::slurm;
  const std::string_view text = fuzz::AsText(data, size);
  auto poll = ParseSqueuePoll(text, "squeue");
  fuzz::CheckMessage(poll.status());
  std::vector<long long> ids;
  if (poll.ok()) {
    for (const SlurmJob& job : *poll) ids.push_back(job.id);
  }
  ids.push_back(1);
  fuzz::CheckMessage(ParseSqueueText(text, ids).status());
  fuzz::CheckMessage(ParseScontrolGresDetail(text, "scontrol").status());
  fuzz::CheckMessage(ExpandHostlist(text).status());
  auto gres = ParseGpuGres(text);
  fuzz::CheckMessage(gres.status());
  if (gres.ok()) fuzz::Check(gres->count >= 0, "GPU count >= 0");
  fuzz::CheckMessage(ParseGresIndices(text).status());
  fuzz::CheckMessage(ParseSlurmTime(text, "time").status());
  return 0;
}
