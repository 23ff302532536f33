using AppFunctions;
using AppFunctions.Maui.TestApp;
using Microsoft.Extensions.DependencyInjection;

// The app's startup as MauiProgram.CreateMauiApp() has it: AddAppFunctions(), then the
// dispatcher resolved once so that it is published for the platforms' calls.
var services = new ServiceCollection()
    .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<CallLog>()
    .AddAppFunctions()
    .BuildServiceProvider();
var dispatcher = services.UseAppFunctions();
Console.WriteLine(string.Join(", ", dispatcher.Registry.Functions.Select(f => f.Id)));
