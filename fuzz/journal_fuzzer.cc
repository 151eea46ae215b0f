// Fuzzes the agent's journal replay. Whatever it keeps must end on a line boundary inside the
// text, and re-encoding a kept record must decode to the same record.
#include "fuzz_common.h"
#include "hetsched/slurm/journal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hetsched;
  using slurm::Journal;
  const std::string_view text = fuzz::AsText(data, size);
  auto replay = Journal::Parse(text, "journal.jsonl");
  fuzz::CheckMessage(replay.status());
  if (!replay.ok()) return 0;
  fuzz::CheckMessage(Status::ParseError(replay->warning.empty() ? "-" : replay->warning));
  fuzz::Check(replay->good_end <= text.size(), "kept records end inside the text");
  fuzz::Check(replay->good_end == 0 || text[replay->good_end - 1] == '\n', "kept records end on a newline");
  for (const slurm::JournalRecord& r : replay->records) {
    auto back = Journal::Decode(Journal::Encode(r), "re-encoded");
    if (!back.ok()) fuzz::Fail("a kept record does not re-decode", back.status().message());
    fuzz::Check(back->event == r.event && back->job == r.job && back->nodes == r.nodes &&
                    back->devices == r.devices && back->value == r.value && back->gpus == r.gpus,
                "a kept record re-decodes to itself");
  }
  return 0;
}
