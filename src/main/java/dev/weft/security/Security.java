package dev.weft.security;

import dev.weft.core.AuthSettings;
import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import java.io.PrintStream;

/**
 * Weft's authentication, assembled once per server from the settings over one store: the users
 * collection (created with its first admin when empty), the authenticate stage, and the document
 * policy of each collection. It is the only public way in; the parts are package-private.
 */
public final class Security {
    private final UsersCollection users;
    private final Authentication authentication;
    private final Passwords passwords;
    private final AuthTokens tokens;
    private final TokenRevocations revocations;

    private Security(UsersCollection users, Authentication authentication, Passwords passwords, AuthTokens tokens,
                     TokenRevocations revocations) {
        this.users = users;
        this.authentication = authentication;
        this.passwords = passwords;
        this.tokens = tokens;
        this.revocations = revocations;
    }

    /**
     * Opens security over {@code store}: creates the users collection and its {@code admin} when
     * there is no user yet (a random password is printed once on {@code console}). A setting that
     * cannot work (a short JWT secret, an unreadable key file, a weak admin password) is an
     * {@link IllegalArgumentException} or a 400 {@link dev.weft.core.WeftException} saying which.
     */
    public static Security open(Settings settings, Store store, PrintStream console) {
        AuthSettings s = settings.auth();
        Passwords passwords = new Passwords(s.bcryptCost(), s.passwordMinLength(), s.hashConcurrency(), s.hashWaitMs());
        UsersCollection users = new UsersCollection(store, new Namespace(s.usersDb(), s.usersCollection()),
                new Json(settings.maxNestingDepth()), passwords);
        users.ensureAdmin(s.adminPassword(), console);
        TokenRevocations revocations = new TokenRevocations(store, s.usersDb(), new Json(settings.maxNestingDepth()),
                System::currentTimeMillis);
        AuthTokens tokens = new AuthTokens(users.tokenKey(), s.authTokenTtlMs(), s.authCacheEntries(),
                System::currentTimeMillis, revocations::revokedAt);
        Authentication authentication = new Authentication(users, passwords,
                new CredentialCache(s.authCacheTtlMs(), s.authCacheEntries(), System::nanoTime), tokens,
                JwtVerifier.of(s),
                new LoginGuard(s.loginGuardFailures(), s.loginGuardWindowMs(), s.loginGuardAddresses(), System::nanoTime));
        return new Security(users, authentication, passwords, tokens, revocations);
    }

    /**
     * RESTHeart's {@code DELETE /tokens/{user}}: every auth token of {@code user} issued until now
     * is refused from now on, by every node; the user's next password login gets a new one.
     */
    public void revokeTokens(String user) {
        revocations.revoke(user);
        tokens.forget(user);
    }

    /** Passwords hashed or verified since start: a remembered credential costs none. */
    public long passwordHashes() {
        return passwords.computed();
    }

    public Authenticator authenticator() {
        return authentication;
    }

    /** Changes whenever a user is created, changed or deleted, on any node (open change streams are checked again then). */
    public long usersVersion() {
        return users.version();
    }

    /** The users collection's policy for it, {@link DocumentPolicy#NONE} for every other collection. */
    public DocumentPolicy.Lookup policies() {
        return ns -> ns.equals(users.namespace()) ? users : DocumentPolicy.NONE;
    }
}
