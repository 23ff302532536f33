"""Reads BenchmarkDotNet's JSON report (bindings/dotnet/benchmarks) and merges its figures into
the bindings' JSON: python3 dotnet_figures.py ARTIFACTS_DIR '{"kotlin_...": ...}'."""
import glob
import json
import os
import sys

artifacts, merged = sys.argv[1], json.loads(sys.argv[2] if len(sys.argv) > 2 else "{}")
names = {"Execute": "dotnet_execute", "ExecuteJson": "dotnet_execute_json",
         "ExecuteSameCallAsC": "dotnet_execute_c_call",
         "ExecuteWithoutDefaultTimeout": "dotnet_execute_without_default_timeout",
         "AIFunctionFactoryInvoke": "dotnet_aifunctionfactory",
         "AIFunctionFactoryInvokeSameCallAsC": "dotnet_aifunctionfactory_c_call",
         "AppFunctionAsAIFunction": "dotnet_asaifunction",
         "ExecuteWithScopeAndDelegates": "dotnet_execute_realistic",
         "SameCallInCLoop": "dotnet_c_same_process"}
for path in glob.glob(os.path.join(artifacts, "results", "*.json")):
    with open(path) as fh:
        report = json.load(fh)
    for b in report.get("Benchmarks", []):
        key = names.get(b.get("Method"))
        if not key or not b.get("Statistics"):
            continue
        merged[key + "_ns"] = round(b["Statistics"]["Mean"], 1)
        mem = (b.get("Memory") or {}).get("BytesAllocatedPerOperation")
        if mem is not None:
            merged[key + "_alloc_bytes"] = mem
merged["dotnet_load_average_1m"] = round(os.getloadavg()[0], 2)  # right after the run
print(json.dumps(merged))
