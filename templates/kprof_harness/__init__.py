"""kprof's harness: runs candidate kernels once each inside an NVTX range, for Nsight Compute.

kprof embeds this package and the entry script beside it (harness.py) in its binary and writes
both next to a JSON plan on every run, so edits here are lost. The plan names a KernelBench-style
problem.py (get_inputs, get_init_inputs, Model) and one kernel.py per candidate
(kernel_function). Paths and settings reach the harness only as data in the plan; nothing from
the plan is ever executed as code except the named .py files themselves. For each candidate the
harness makes `warmup` un-ranged calls (JIT compilation, autotuning), synchronizes, then makes
exactly one call inside the flat NVTX range named in the plan ("kprof:cand<i>"), synchronized
before the range is popped. ncu profiles only that call. Progress goes to the status file; one
short line per phase goes to stderr; stdout is left to the program under test.

The modules, each tested on its own (tests/python/test_harness_<module>.py), from the bottom up:

    report          exit codes, log lines, exceptions in words
    plan            reading and checking the plan (PlanError)
    status          the status file, replaced whole after every phase change
    modules         loading problem.py and kernel.py by path; sys.path without shadowing
    torch_import    torch's import, with Triton's cache key computed beside it
    gpus            the GPUs CUDA shows, and the machine's count when it shows none
    inputs          seeding, making the inputs, casting them (choose_cast)
    problem         problem.py and its inputs and Model per cast word (load_problem)
    locks           the profiled-call lock and a standby's GPU lock
    timing          a candidate's wall time outside ncu (L2 flushed, CUDA events, NVML clocks)
    correctness     a candidate's outputs against the reference's, under per-dtype tolerances
    speed_of_light  the reference's FLOPs (tensor-core and other), minimum bytes and dtype
    flop_cache      the reference's FLOP counts kept for the next process (plan truth.flop_cache)
    truth           the reference per cast word, each candidate's check and timing (plan "truth")
    truth_process   the truth's own process outside ncu (`--truth GATE SECONDS`), gated by kprof
    timeline        the timeline of a call of many launches (`--timeline OUT.json`), outside ncu
    extract         a model's Triton kernels as standalone cases (`--extract SPEC.json`)
    calls           the call style (choose_call) and each candidate's warm-up and profiled call
    primer          the early primer (CUDA context, ncu's first kernel), a standby's primers
    compile_ahead   the harness's side of compiling ahead, and the files it shares
    compile_worker  a compile worker (`harness.py PLAN --compile-worker`) and the meta device
    standby         a standby's wait for its candidates on its FIFO
    lifetime        dying with ncu and kprof, crash stacks, the quick exit
    session         one harness process, in the order that overlaps its slow steps
    main            the command line; imports every module at the start

What a candidate's profiled call is measured against (issue 43: timing, correctness, speed of
light) is in timing, correctness and speed_of_light; truth drives them, in truth_process: kprof
runs it beside each session, outside ncu, whose injection slows every launch of the process it
profiles (docs/harness.md, "The truth beside the counters").

Exit codes: 0 every candidate ok; 1 some candidate failed (the status says which); 2 the problem
is invalid or the plan is unreadable; 3 the CUDA context is poisoned (run again from the next
candidate in a fresh process); 4 a standby waited idle_seconds for nothing; 70 a bug in the
harness. docs/harness.md says the rest.

Needs Python >= 3.8, the standard library and torch (triton is reported when present).
"""
