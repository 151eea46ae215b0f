#include "hetsched/slurm/job_request.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/util/file_io.h"

namespace hetsched::slurm {
namespace {

class JobRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto text = ReadFile(std::string(HETSCHED_TEST_DATA_DIR) + "/slurm/sinfo_2a100_2v100.json");
    ASSERT_TRUE(text.ok());
    auto nodes = ParseSinfoJson(*text, "fixture");
    ASSERT_TRUE(nodes.ok());
    auto c = TranslateCluster(*nodes, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), {}, "fixture");
    ASSERT_TRUE(c.ok());
    cluster_ = std::move(c).value();
  }
  Result<JobRequest> Translate(const SlurmJob& job, GoodputCatalog* goodput = nullptr) {
    JobRequestOptions o;
    o.origin_s = 1000;
    o.goodput = goodput;
    return TranslateJob(job, cluster_, ModelZoo::BuiltIn(), {}, o);
  }
  static SlurmJob Held(const std::string& tres_per_job, const std::string& comment = "") {
    SlurmJob j;
    j.id = 42;
    j.state = "PENDING";
    j.reason = "JobHeldUser";
    j.tres_per_job = tres_per_job;
    j.comment = comment;
    j.node_count = 1;
    j.submit_time_s = 1010;
    return j;
  }
  SlurmCluster cluster_;
};

TEST_F(JobRequestTest, RecordedHeldJob) {
  auto text = ReadFile(std::string(HETSCHED_TEST_DATA_DIR) + "/slurm/squeue_mixed.json");
  ASSERT_TRUE(text.ok());
  auto jobs = ParseSqueueJson(*text, "fixture");
  ASSERT_TRUE(jobs.ok());
  auto r = Translate((*jobs)[5]);  // --gpus=2, comment "hetsched model=resnet50 iterations=100"
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.id, 6);
  EXPECT_EQ(r->spec.num_gpus, 2);
  EXPECT_TRUE(r->spec.allowed_types.empty());
  EXPECT_EQ(r->spec.model, "resnet50");
  EXPECT_EQ(r->spec.iterations, 100);
  EXPECT_EQ(r->form, GpuRequestForm::kPerJob);
  auto typed = Translate((*jobs)[6]);  // -N 2 --gres=gpu:v100:2: 2 per node x 2 nodes = 4
  ASSERT_TRUE(typed.ok()) << typed.status().message();
  EXPECT_EQ(typed->spec.num_gpus, 4);
  EXPECT_EQ(typed->form, GpuRequestForm::kPerNode);
  ASSERT_EQ(typed->spec.allowed_types.size(), 1u);
  EXPECT_EQ(DeviceCatalog::BuiltIn().type(typed->spec.allowed_types[0]).name, "v100-16gb");
  EXPECT_EQ(typed->gres_type, "v100");
}

TEST_F(JobRequestTest, CommentFields) {
  auto r = Translate(Held("gres:gpu:a100:4", "free text hetsched model=bert-base iterations=500 batch=16 priority=3"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.model, "bert-base");
  EXPECT_EQ(r->spec.batch_size, 16);
  EXPECT_EQ(r->spec.priority, 3);
  EXPECT_EQ(r->spec.parallelism, Parallelism::kDataRing);
  EXPECT_DOUBLE_EQ(r->spec.submit_time_s, 10);  // 1010 - origin 1000
  auto defaults = Translate(Held("gres:gpu:1"));
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->spec.model, "resnet50");
  EXPECT_EQ(defaults->spec.iterations, 1000);
  EXPECT_EQ(defaults->spec.parallelism, Parallelism::kSingle);
}

TEST_F(JobRequestTest, BadInputIsRejectedWithReason) {
  auto no_type = Translate(Held("gres:gpu:h100x:2"));
  ASSERT_FALSE(no_type.ok());
  EXPECT_NE(no_type.status().message().find("Slurm job 42"), std::string::npos);
  EXPECT_NE(no_type.status().message().find("'h100x'"), std::string::npos);
  auto absent = Translate(Held("gres:gpu:k80:2"));  // in the catalog, not in this cluster
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.status().message().find("does not exist in this cluster"), std::string::npos);
  // 8 A100 in the cluster: 9 can never fit; 17 of any type neither (16 V100 at most).
  auto big = Translate(Held("gres:gpu:a100:9"));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("larger than the cluster"), std::string::npos);
  EXPECT_FALSE(Translate(Held("gres:gpu:17")).ok());
  EXPECT_TRUE(Translate(Held("gres:gpu:16")).ok());
  EXPECT_FALSE(Translate(Held("")).ok());  // no GPU at all
  EXPECT_FALSE(Translate(Held("gres:gpu:1", "hetsched model=nosuch")).ok());
  EXPECT_FALSE(Translate(Held("gres:gpu:1", "hetsched iterations=abc")).ok());
  EXPECT_FALSE(Translate(Held("gres:gpu:1", "hetsched iterations=0")).ok());
  EXPECT_FALSE(Translate(Held("gres:gpu:1", "hetsched garbage")).ok());
  EXPECT_FALSE(Translate(Held("gres:gpu:1", "hetsched parallelism=magic")).ok());
}

// A goodput job's fields, as the native trace format reads its columns of the same names.
TEST_F(JobRequestTest, GoodputFields) {
  auto catalog = GoodputCatalog::OpenNamed(GoodputCatalog::kBuiltInDir, {{"", "v100"}}, "pollux", DeviceCatalog::BuiltIn());
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  auto r = Translate(Held("gres:gpu:2", "hetsched application=cifar10 adaptive_batch=true elastic=1 total_batch_size=256"),
                     &*catalog);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.application, "cifar10");
  EXPECT_TRUE(r->spec.adaptive_batch);
  EXPECT_TRUE(r->spec.elastic);
  EXPECT_EQ(r->spec.total_batch_size, 256);
  EXPECT_EQ(r->spec.batch_size, 128);               // per GPU
  EXPECT_EQ(r->spec.model, "resnet18-cifar");       // what cifar10 trains
  ASSERT_EQ(r->spec.allowed_types.size(), 1u);      // the profiles' type
  EXPECT_EQ(DeviceCatalog::BuiltIn().type(r->spec.allowed_types[0]).name, "v100-16gb");
  ASSERT_EQ(r->goodput.by_type.size(), 1u);
  auto iterations = r->goodput.reference().IterationsAt(256, r->goodput.reference().completion_epoch());
  ASSERT_TRUE(iterations.ok());
  EXPECT_EQ(r->spec.iterations, static_cast<long long>(std::ceil(*iterations)));
  // Its tuned batch from batch= per GPU; rigid by default.
  auto rigid = Translate(Held("gres:gpu:2", "hetsched application=cifar10 batch=64"), &*catalog);
  ASSERT_TRUE(rigid.ok()) << rigid.status().message();
  EXPECT_EQ(rigid->spec.total_batch_size, 128);
  EXPECT_FALSE(rigid->spec.adaptive_batch);
  EXPECT_FALSE(rigid->spec.elastic);
  struct Bad {
    std::string gpus, comment, needle;
  };
  for (const Bad& b : std::vector<Bad>{
           {"gres:gpu:1", "hetsched application=cifar10", "a goodput job needs its tuned batch"},
           {"gres:gpu:1", "hetsched application=cifar10 total_batch_size=0", "'total_batch_size' must be in [1, 1e9]"},
           {"gres:gpu:1", "hetsched application=cifar10 total_batch_size=128 adaptive_batch=2", "must be 0, 1, true or false"},
           {"gres:gpu:1", "hetsched application=../etc total_batch_size=128", "unknown application"},
           {"gres:gpu:a100:1", "hetsched application=cifar10 total_batch_size=128", "no times for GPU type 'a100-40gb'"},
           {"gres:gpu:1", "hetsched adaptive_batch=1", "only a goodput job has it"},
           {"gres:gpu:1", "hetsched elastic=1", "only a goodput job may change its GPU count"},
           {"gres:gpu:1", "hetsched model=resnet50 colour=blue", "comment field 'colour' is unknown"},
       }) {
    auto bad = Translate(Held(b.gpus, b.comment), &*catalog);
    ASSERT_FALSE(bad.ok()) << b.comment;
    EXPECT_NE(bad.status().message().find(b.needle), std::string::npos) << bad.status().message();
  }
  // Profiles of a type this cluster does not have: said so.
  auto t4 = GoodputCatalog::OpenNamed(GoodputCatalog::kBuiltInDir, {{"", "t4"}}, "pollux", DeviceCatalog::BuiltIn());
  ASSERT_TRUE(t4.ok());
  auto none = Translate(Held("gres:gpu:1", "hetsched application=cifar10 total_batch_size=128"), &*t4);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("which this cluster does not have"), std::string::npos) << none.status().message();
}

}  // namespace
}  // namespace hetsched::slurm
