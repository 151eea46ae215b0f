// The back end's (learn/torch/): a module's weights to and from bytes, errors as Status. Only .cc
// files of learn/torch/ include this, after the precompiled torch header.
#pragma once

#include <sstream>
#include <string>

#include "hetsched/util/status.h"

namespace hetsched::learn {

inline Result<std::string> ModuleToBytes(const torch::nn::Module& module, const std::string& path) {
  std::ostringstream bytes;
  try {
    torch::serialize::OutputArchive archive;
    module.save(archive);
    archive.save_to(bytes);
  } catch (const c10::Error& e) {
    return Status::IoError(path + ": could not serialise the model weights: " + e.what_without_backtrace());
  }
  return bytes.str();
}

inline Status ModuleFromBytes(torch::nn::Module& module, const std::string& bytes, const std::string& path) {
  try {
    std::istringstream in(bytes);
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    module.load(archive);
  } catch (const c10::Error& e) {
    return Status::ParseError(path + ": model weights do not match the configuration: " + e.what_without_backtrace());
  }
  return Status::Ok();
}

}  // namespace hetsched::learn
