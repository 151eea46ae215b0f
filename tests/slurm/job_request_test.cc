#include "hetsched/slurm/job_request.h"

#include <gtest/gtest.h>

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
  Result<JobRequest> Translate(const SlurmJob& job) {
    JobRequestOptions o;
    o.origin_s = 1000;
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

}  // namespace
}  // namespace hetsched::slurm
