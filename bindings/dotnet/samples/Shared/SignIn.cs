// The seed's sign-in delegate (seed 000), shared by the samples and the benchmarks: cancelling
// orders needs a signed-in user (a Denied outcome outside the app, openApp on Apple).
using AppFunctions;

public sealed class SignInState
{
    public bool IsSignedIn { get; set; }
}

public class SignInDelegate(SignInState signIn) : IAppFunctionDelegate
{
    public Task<AppFunctionGate> OnInvoking(AppFunctionContext context, CancellationToken cancellationToken)
        => Task.FromResult(context.FunctionId == "cancel_order" && !signIn.IsSignedIn
            ? AppFunctionGate.OpenApp("Sign in to cancel orders.")
            : AppFunctionGate.Allow);
}
