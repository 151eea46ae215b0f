#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "hetsched/model/model_zoo.h"

namespace hetsched {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr const char* kGood = R"({
  "format": "hetsched-layer-profile", "version": 1,
  "name": "My-Net", "domain": "vision", "default_batch_size": 16,
  "layers": [
    {"name": "emb", "kind": "embedding", "fwd_flops_per_sample": 0, "embedding_table_bytes": 4000,
     "sparse_bytes_per_sample": 40, "activation_bytes_per_sample": 40},
    {"name": "conv", "kind": "CONV", "fwd_flops_per_sample": 1e6, "param_bytes": 1200,
     "activation_bytes_per_sample": 800},
    {"name": "head", "fwd_flops_per_sample": 100, "bwd_flops_per_sample": 150, "param_bytes": 40,
     "activation_bytes_per_sample": 4}
  ]
})";

TEST(ModelProfileFileTest, LoadsGoodFile) {
  auto m = LoadModelProfile(WriteTemp("good.json", kGood));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->name, "my-net");
  EXPECT_EQ(m->display_name, "my-net");
  EXPECT_EQ(m->default_batch_size, 16);
  ASSERT_EQ(m->layers.size(), 3u);
  EXPECT_EQ(m->layers[1].kind, LayerKind::kConv);
  EXPECT_EQ(m->layers[2].kind, LayerKind::kOther);           // default kind
  EXPECT_DOUBLE_EQ(m->layers[1].bwd_flops_per_sample, 2e6);  // default 2 x forward
  EXPECT_DOUBLE_EQ(m->layers[2].bwd_flops_per_sample, 150);  // given
  EXPECT_DOUBLE_EQ(m->total_param_bytes(), 1240);
  // Batch of 16: 1,240 dense + 16 x 40 sparse bytes.
  EXPECT_DOUBLE_EQ(m->gradient_bytes(16), 1240 + 640);
}

TEST(ModelProfileFileTest, BadFiles) {
  const std::string layer = R"({"name": "l", "fwd_flops_per_sample": 1, "activation_bytes_per_sample": 4)";
  auto doc = [&](const std::string& layers, const std::string& top = R"("name": "m")") {
    return "{" + top + R"(, "layers": [)" + layers + "]}";
  };
  struct Case {
    std::string text;
    const char* expected;
  };
  const Case cases[] = {
      {"{\"name\": \"m\",\n \"layers\": [\n  {]}", "bad.json:3:"},
      {"[]", "bad.json: top level must be an object"},
      {R"({"layers": [])" "}", "field 'name' is missing"},
      {doc(""), "list 'layers' is empty"},
      {R"({"name": "m"})", "missing list 'layers'"},
      {doc(layer + "}", R"("name": "m", "default_batch_size": 0)"), "'default_batch_size' must be > 0"},
      {doc(layer + "}", R"("name": "m", "default_batch_size": 2.5)"), "'default_batch_size' must be a whole number"},
      {doc(layer + "}", R"("name": "m", "default_batch_size": 1.6e104)"), "'default_batch_size' must be at most 16777216"},
      {doc(layer + "}", R"("name": "m", "batch": 3)"), "unknown field 'batch'"},
      {doc(layer + "}, 7"), "bad.json: layers[1]: must be an object"},
      {doc(layer + "}, " + R"({"name": "x", "activation_bytes_per_sample": 4})"),
       "bad.json: layers[1] ('x'): field 'fwd_flops_per_sample' is missing"},
      {doc(layer + R"(, "param_bytes": -1})"), "layers[0] ('l'): field 'param_bytes' must be >= 0"},
      {doc(layer + R"(, "kind": "lstm"})"), "field 'kind' 'lstm' is not one of embedding, conv"},
      {doc(layer + R"(, "flops": 3})"), "layers[0] ('l'): unknown field 'flops'"},
      {doc(layer + R"(, "sparse_bytes_per_sample": 8})"), "needs an embedding_table_bytes > 0"},
      {doc(R"({"name": "l", "fwd_flops_per_sample": 1})"), "field 'activation_bytes_per_sample' is missing"},
      {doc(R"({"name": "l", "fwd_flops_per_sample": 0, "activation_bytes_per_sample": 4})"),
       "the layers have no forward FLOPs in total"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteTemp("bad.json", c.text);
    auto m = LoadModelProfile(path);
    ASSERT_FALSE(m.ok()) << c.text;
    EXPECT_NE(m.status().message().find(c.expected), std::string::npos)
        << "message: " << m.status().message() << "\nexpected: " << c.expected;
    EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().message();
  }
}

TEST(ModelProfileFileTest, MissingFile) {
  auto m = LoadModelProfile(::testing::TempDir() + "/does-not-exist.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace hetsched
