"""The fast tier (``make test-fast``: ``pytest -m "not slow"``), for the edit-test loop: which
tests are slow, by name, in one place (tests/conftest.py marks them while collecting)."""

from __future__ import annotations

import pytest

# The fast tier keeps the game, the rules, the solver, the bundled bots, the statistics, the
# store and the site's data, in under 2 minutes on 2 shared cores. Marked `slow` here, each
# with its reason: whole files that run the command line, real sandboxes, worker pools,
# clusters, browsers or simulations, and the single heavy tests of otherwise fast files (a
# sandboxed tournament of its own, seconds each; test_site.py keeps one, shared by the whole
# file). A test may also carry `@pytest.mark.slow` itself. CI (`make check`) runs everything.
_SLOW_FILES: dict[str, str] = {
    "test_cli_doctor.py": "the command line in subprocesses, with live sandboxed matches",
    "test_cli_errors.py": "the command line in subprocesses",
    "test_cli_faults.py": "sandboxed tournaments through the command line",
    "test_cli_hostile.py": "hostile bots in sandboxed tournaments through the command line",
    "test_cli_newcomer.py": "a newcomer's whole session through the command line",
    "test_cli_runlock.py": "two tournaments racing through the command line",
    "test_cli_tournament.py": "sandboxed tournaments through the command line",
    "test_cli_first_week.py": "sandboxed tournaments through the command line, 1-4 s each",
    "test_sandbox.py": "real sandboxed bot processes",
    "test_sandbox_attacks.py": "a real sandboxed match per hostile bot",
    "test_sandbox_channels.py": "real sandboxed bots trying channels to each other",
    "test_sandbox_where.py": "real sandboxed bots that run out of time",
    "test_native.py": "native bots built and run in real bubblewrap worlds, every toolchain",
    "test_native_channels.py": "hostile native bots in real matches through the pool",
    "test_native_attacks_more.py": "hostile Go, Rust and C++ bots in real matches through the pool",
    "test_kits_cli.py": "every starter kit built, checked and run through the command line",
    "test_sandbox_kernel.py": "real sandboxed bots timing the kernel's caches, a cgroup per host",
    "test_cluster.py": "a local Dask cluster",
    "test_cluster_roles.py": "a local TLS Dask cluster and a process holding a worker's key",
    "test_cluster_claims.py": "hostile workers on a local Dask cluster",
    "test_tournament_run.py": "sandboxed tournaments on worker processes",
    "test_compare.py": "sandboxed comparisons until the sequential test stops",
    "test_ladder_run.py": "sandboxed ladders on worker processes",
    "test_ladder_run_cli.py": "sandboxed ladders through the command line, stopped and resumed",
    "test_ladder_run_cluster.py": "a ladder on a local Dask cluster",
    "test_secrecy.py": "tournaments and deal verification through the command line",
    "test_secrecy_attack.py": "a sandboxed bot hunting for the deals",
    "test_separation.py": "tournaments played until the bots separate",
    "test_site_install.py": "a non-editable install in a fresh virtualenv",
    "test_site_serve.py": "a real HTTP server",
    "test_web_upload.py": "uploads checked in the real sandbox through arena web",
    "test_web_cli.py": "arena web in a subprocess, over TLS",
    "test_rerun_in_venv.py": "pytest rerun in a fresh environment",
    "test_play.py": "arena play in a pseudo-terminal",
    "test_ratings_cli.py": "tournaments through the command line",
    "test_sequential_coverage.py": "simulations of the sequential test's coverage",
    "test_ratings_coverage.py": "simulations of the rating intervals' coverage",
    "test_bench_bid_calibration.py": "benchmark scripts on worker processes",
    "test_bench_oracle.py": "benchmark scripts on worker processes",
    "test_bench_strength.py": "benchmark scripts on worker processes",
    "test_bench_trick_noise.py": "benchmark scripts on worker processes",
    "test_bench_site_scale.py": "a benchmark script building ladder databases and sites",
    "test_bench_web_load.py": "a real ladder and two servers under load",
    "test_site_browser.py": "headless Chromium",
    "test_site_compare.py": "headless Chromium",
    "test_site_layout.py": "headless Chromium",
    "test_site_ladder.py": "headless Chromium",
    "test_site_organiser.py": "headless Chromium",
    "test_web_author.py": "headless Chromium, arena web and a real ladder beside it",
    "test_web_live.py": "headless Chromium",
    "test_web_pages.py": "a real uvicorn server in a thread",
    "test_play_browser.py": "headless Chromium playing against sandboxed bots",
    "test_play_human.py": "whole matches of a person against real sandboxed bots",
    "test_web_play.py": "games against sandboxed bots through a real uvicorn server",
}
_SLOW_TESTS: dict[str, str] = {
    "test_site_xss.py::test_no_injected_markup_in_pages_served_on_request": "a real HTTP server",
    "test_engine_properties.py::test_random_legal_matches": "thousands of random matches",
    "test_docs.py::test_docs_site_builds_in_strict_mode": "builds the documentation site",
    "test_docs.py::test_help_points_to_the_docs": "every command's --help in a subprocess",
    "test_reports.py::test_standings_prints_and_exports_the_same_reports": "a tournament",
    "test_bots.py::test_every_phase_and_variant_is_answered_legally": "every phase and variant",
    "test_bots.py::test_heuristic_beats_random_in_a_small_duplicate_set": "a duplicate set",
    "test_bots.py::test_deterministic_across_processes_and_hash_seeds": "fresh interpreters",
    "test_bots.py::test_decisions_stay_under_the_sandbox_limit_at_default_settings": "full search",
    "test_bots.py::test_montecarlo_decides_the_same_whatever_its_clock_reads_below_the_"
    "safety_cap": "full searches under two clocks",
    "test_site_xss.py::test_no_injected_markup_anywhere": "every page of a hostile tournament",
    "test_site.py::test_pages_use_nothing_remote": "every page of a rendered site",
    "test_site.py::test_serve_renders_a_missing_site_first": "renders and serves a site",
    "test_store.py::test_a_locked_database_is_refused": "waits out the lock's timeout",
    "test_bench_ladder_real.py::test_the_quick_real_ladder": "a real ladder, local and on Dask",
    "test_bench_ladder_real.py::test_bad_times_are_one_error_line": "the script imports Dask",
    "test_bench_ladder.py::test_the_newcomers_field_is_measured_as_long_as_asked": "a long sim",
    "test_bench_ladder.py::test_the_quick_run_measures_every_schedule": "simulated ladders",
    "test_api.py::test_the_command_line_stores_what_the_library_does": "two tournaments",
    "test_api.py::test_run_tournament_plays_stores_rates_and_renders": "a sandboxed tournament",
    "test_sandbox_world_cache.py::test_validate_bot_plays_in_a_given_pool_and_leaves_it_open": (
        "real sandboxed matches"
    ),
    "test_tiers.py::test_the_fast_tier_leaves_the_slow_files_unimported": "collects every test",
    # The three tests of the module's sandboxed tournament and comparison (its fixture).
    "test_reports.py::test_the_comparison_stays_off_the_leaderboard": "a tournament",
    "test_reports.py::test_the_comparison_page_shows_its_chart_and_verdict": "a tournament",
    "test_reports.py::test_the_round_robin_pages_show_the_reports": "a tournament",
    "test_reports.py::test_a_read_command_writes_nothing_even_with_no_cache": "six commands",
}


def slow_as_a_whole(name: str) -> bool:
    """Whether the test file ``name`` (``test_x.py``) is slow as a whole."""
    return name in _SLOW_FILES


def slow_reason(item: pytest.Item) -> str | None:
    """Why ``item`` is left out of the fast tier (None: it is in it)."""
    file = item.path.name
    test = f"{file}::{getattr(item, 'originalname', item.name)}"
    return _SLOW_FILES.get(file) or _SLOW_TESTS.get(test)
