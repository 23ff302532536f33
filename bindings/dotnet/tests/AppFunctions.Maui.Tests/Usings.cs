global using AppFunctions.Maui.TestApp;
global using Xunit;

// Published dispatchers are process-wide: the tests take turns.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
