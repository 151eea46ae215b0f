#include "hetsched/learn/gru_forecaster.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "hetsched/learn/backend.h"
#include "hetsched/learn/model_file.h"
#include "hetsched/util/file_io.h"

namespace hetsched::learn {
namespace {

constexpr const char* kForecasterMagic = "hetsched-gru-forecaster v1";

}  // namespace

Status GruForecasterConfig::Validate() const {
  auto bad = [](const char* field, const std::string& why) {
    return Status::InvalidArgument(fmt::format("GRU forecaster: field '{}' {}", field, why));
  };
  if (window < 1 || window > 10000) return bad("window", "must be in 1..10000");
  if (hidden < 1 || hidden > 4096) return bad("hidden", "must be in 1..4096");
  if (layers < 1 || layers > 8) return bad("layers", "must be in 1..8");
  if (epochs < 0 || epochs > 100000) return bad("epochs", "must be in 0..100000");
  if (batch < 1) return bad("batch", "must be >= 1");
  if (!(learning_rate > 0) || !std::isfinite(learning_rate)) return bad("learning_rate", "must be > 0");
  if (threads < 1 || threads > 1024) return bad("threads", "must be in 1..1024");
  if (!(validation_fraction >= 0 && validation_fraction < 1)) return bad("validation_fraction", "must be in [0, 1)");
  return Status::Ok();
}

struct GruForecaster::Impl {
  GruForecasterConfig config;
  std::unique_ptr<GruNetBackend> net;  // from the first Fit or Load
  bool trained = false;
};

GruForecaster::GruForecaster(GruForecasterConfig config) : impl_(std::make_unique<Impl>()) { impl_->config = config; }
GruForecaster::~GruForecaster() = default;
GruForecaster::GruForecaster(GruForecaster&&) noexcept = default;
GruForecaster& GruForecaster::operator=(GruForecaster&&) noexcept = default;

namespace {
const std::vector<double> kNoHistory;
}  // namespace

bool GruForecaster::trained() const { return impl_->trained; }
const std::vector<double>& GruForecaster::loss_history() const { return impl_->net ? impl_->net->loss_history() : kNoHistory; }
const std::vector<double>& GruForecaster::validation_history() const {
  return impl_->net ? impl_->net->validation_history() : kNoHistory;
}
int GruForecaster::best_epoch() const { return impl_->net ? impl_->net->best_epoch() : -1; }
const GruForecasterConfig& GruForecaster::config() const { return impl_->config; }

Status GruForecaster::Fit(std::span<const double> series) {
  Impl& m = *impl_;
  HETSCHED_RETURN_IF_ERROR(m.config.Validate());
  const int w = m.config.window;
  if (series.size() < static_cast<size_t>(w) + 2) {
    return Status::InvalidArgument(fmt::format("GRU forecaster: {} values, needs at least window + 2 = {}", series.size(), w + 2));
  }
  if (static_cast<double>(series.size() - static_cast<size_t>(w)) * (1 - m.config.validation_fraction) < 1) {
    return Status::InvalidArgument("GRU forecaster: no training window left after the validation split");
  }
  for (size_t t = 0; t < series.size(); ++t) {
    if (!std::isfinite(series[t])) return Status::InvalidArgument(fmt::format("GRU forecaster: value {} at index {} is not finite", series[t], t));
  }
  HETSCHED_ASSIGN_OR_RETURN(const Backend* backend, LearnBackend());
  m.trained = false;
  m.net = backend->NewGruNet(m.config);
  HETSCHED_RETURN_IF_ERROR(m.net->Fit(series));
  m.trained = true;
  return Status::Ok();
}

std::vector<double> GruForecaster::OneStepPredictions(std::span<const double> series) const {
  if (!impl_->trained) return std::vector<double>(series.size(), std::numeric_limits<double>::quiet_NaN());
  return impl_->net->OneStepPredictions(series);
}

// File format: learn/model_file.h.
Status GruForecaster::Save(const std::string& path) const {
  const Impl& m = *impl_;
  if (!m.trained) return Status::InvalidArgument(path + ": GRU forecaster is not trained; nothing to save");
  const GruForecasterConfig& c = m.config;
  HETSCHED_ASSIGN_OR_RETURN(const std::string weights, m.net->WeightsToBytes(path));
  const ModelFields fields{{"window", static_cast<double>(c.window)},
                           {"hidden", static_cast<double>(c.hidden)},
                           {"layers", static_cast<double>(c.layers)},
                           {"epochs", static_cast<double>(c.epochs)},
                           {"batch", static_cast<double>(c.batch)},
                           {"learning_rate", c.learning_rate},
                           {"validation_fraction", c.validation_fraction},
                           {"seed", static_cast<double>(c.seed)},
                           {"threads", static_cast<double>(c.threads)},
                           {"mean", m.net->mean()},
                           {"scale", m.net->scale()}};
  return WriteFileAtomic(path, EncodeModelFile(kForecasterMagic, fields, weights));
}

Result<GruForecaster> GruForecaster::Load(const std::string& path) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  HETSCHED_ASSIGN_OR_RETURN(const DecodedModelFile file,
                            DecodeModelFile(path, text, kForecasterMagic,
                                            {"window", "hidden", "layers", "epochs", "batch", "learning_rate",
                                             "validation_fraction", "seed", "threads", "mean", "scale"}));
  const std::vector<double>& v = file.values;
  GruForecasterConfig c;
  c.window = static_cast<int>(v[0]);
  c.hidden = static_cast<int>(v[1]);
  c.layers = static_cast<int>(v[2]);
  c.epochs = static_cast<int>(v[3]);
  c.batch = static_cast<int>(v[4]);
  c.learning_rate = v[5];
  c.validation_fraction = v[6];
  c.seed = static_cast<uint64_t>(v[7]);
  c.threads = static_cast<int>(v[8]);
  if (Status st = c.Validate(); !st.ok()) return st.WithContext(path + ": ");
  if (!(v[10] > 0)) return Status::ParseError(fmt::format("{}: field 'scale' must be > 0", path));
  HETSCHED_ASSIGN_OR_RETURN(const Backend* backend, LearnBackend());
  GruForecaster f(c);
  Impl& m = *f.impl_;
  m.net = backend->NewGruNet(c);
  HETSCHED_RETURN_IF_ERROR(m.net->Restore(v[9], v[10], file.weights, path));
  m.trained = true;
  return f;
}

}  // namespace hetsched::learn
