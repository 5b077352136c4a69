#include "profile/run_metadata.hpp"

namespace kprof {
namespace {

/// The round's keys; `with_select` false leaves "select" out (a candidate adds it after the
/// analysis, see CandidateMetadata).
void put_run(Json& out, const RunMetadata& run, bool with_select) {
  out["round"] = run.round;
  out["problem_file"] = run.problem_file;
  out["ncu"] = run.ncu;
  out["ncu_version"] = run.ncu_version;
  out["clock_control"] = run.clock_control;
  out["metric_check"] = run.metric_check;
  if (with_select) {
    out["select"] = run.select;
  }
  out["python"] = run.python;
  out["warmup"] = run.warmup;
  out["inputs"] = run.inputs;
  out["cast"] = run.cast;
  out["gpus"] = run.gpus;
}

} // namespace

Json RunMetadata::to_json() const {
  Json out = Json::object();
  put_run(out, *this, true);
  if (wall_seconds) {
    out["wall_seconds"] = *wall_seconds;
  }
  return out;
}

Json CandidateMetadata::to_json() const {
  Json out = Json::object();
  put_run(out, run, false);
  out["candidate"] = candidate ? Json(*candidate) : Json(nullptr);
  out["kernel_file"] = kernel_file;
  if (!profiled_at.empty()) {
    out["profiled_at"] = profiled_at;
  }
  out["status"] = std::string(kprof::to_string(status));
  out["attempts"] = attempts;
  out["gpu_index"] = gpu_index;
  if (session) {
    out["ncu_argv"] = session->ncu_argv;
    out["gpu_lock_wait_seconds"] = session->gpu_lock_wait_seconds;
    out["ncu_exit"] = session->ncu_exit;
    out["session_wall_seconds"] = session->session_wall_seconds;
    out["session_dir"] = session->session_dir;
    out["standby"] = session->standby;
    if (!session->standby_unavailable.empty()) {
      out["standby_unavailable"] = session->standby_unavailable;
    }
    if (!session->timeline.empty()) {
      out["timeline"] = session->timeline;
    }
    if (session->has_harness) {
      out["harness_setup_seconds"] = session->harness_setup_seconds;
      out["harness_inputs_seconds"] = session->harness_inputs_seconds;
      if (!session->primer.empty()) {
        out["primer"] = session->primer;
        out["primer_seconds"] = session->primer_seconds;
      }
      if (!session->triton_primer.empty()) {
        out["triton_primer"] = session->triton_primer;
        out["triton_primer_seconds"] = session->triton_primer_seconds;
      }
      if (session->compile_target_seconds > 0) {
        out["compile_target_seconds"] = session->compile_target_seconds;
      }
      if (session->triton_key_seconds > 0) {
        out["triton_key_seconds"] = session->triton_key_seconds;
      }
      out["python_version"] = session->python_version;
      out["torch_version"] = session->torch_version;
      out["triton_version"] = session->triton_version;
      out["gpu_name"] = session->gpu_name;
    }
    if (session->source_export_seconds > 0) {
      out["source_export_seconds"] = session->source_export_seconds;
    }
    if (session->import_seconds) {
      out["import_seconds"] = *session->import_seconds;
    }
    if (session->warmup_seconds) {
      out["warmup_seconds"] = *session->warmup_seconds;
    }
    if (session->call_seconds) {
      out["call_seconds"] = *session->call_seconds;
    }
    if (!session->call_lock.empty()) {
      out["call_lock"] = session->call_lock;
      out["call_lock_wait_seconds"] = session->call_lock_wait_seconds;
    }
    if (session->cast_applied) {
      out["cast_applied"] = std::string(kprof::to_string(*session->cast_applied));
      out["cast_reason"] = session->cast_reason;
    }
    if (!session->compiled_ahead.empty()) {
      out["compiled_ahead"] = session->compiled_ahead;
      out["compile_wait_seconds"] = session->compile_wait_seconds;
      out["compile_seconds"] = session->compile_seconds;
    }
  }
  if (!source.empty()) {
    out["source"] = source;
  }
  if (error) {
    out["error"] = kprof::to_json(*error);
  }
  if (replay_passes) {
    out["replay_passes"] = *replay_passes;
    out["select"] = select;
  }
  if (hot_lines) {
    out["hot_lines"] = *hot_lines;
  }
  if (built_from) {
    out["built_from"] = kprof::to_json(*built_from);
  }
  return out;
}

} // namespace kprof
