package dev.shaper.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate authority made for one test and a server certificate it signed for {@code 127.0.0.1} and
 * {@code localhost}, in the forms servers and clients read: PEM files for redis-server and for the shaper's
 * {@code shaper.redis.tls.ca.file}, PKCS12 key and trust stores (with a password) for a Kafka broker and its
 * clients. Made with the JDK's own {@code keytool}, so nothing beyond the JDK is needed; nothing leaves the
 * directory given.
 *
 * <pre>{@code
 * TestCertificates certs = TestCertificates.create(tempDir);
 * certs.caPem();          // the CA's certificate: what a client trusts
 * certs.serverCertPem();  // the server's certificate (signed by the CA) and its key, for redis-server
 * certs.serverKeyPem();
 * certs.keyStore();       // PKCS12: the server's key and chain, for a Kafka broker (password: storePassword())
 * certs.trustStore();     // PKCS12: the CA, for a Kafka client's ssl.truststore.location
 * }</pre>
 */
public final class TestCertificates {

    /** The distinguished name of the client certificate ({@link #clientKeyStore()}). */
    public static final String CLIENT_DN = "CN=shaper";

    private static final Duration KEYTOOL_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final String storePassword;

    private TestCertificates(Path dir, String storePassword) {
        this.dir = dir;
        this.storePassword = storePassword;
    }

    /** Makes a CA and a server certificate in {@code dir}, with a store password of its own. */
    public static TestCertificates create(Path dir) throws IOException, InterruptedException {
        return create(dir, "st0re-" + java.util.UUID.randomUUID());
    }

    /** Makes a CA and a server certificate in {@code dir}; the PKCS12 stores are protected by {@code storePassword}. */
    public static TestCertificates create(Path dir, String storePassword) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        TestCertificates certs = new TestCertificates(dir, storePassword);
        certs.make();
        return certs;
    }

    /** The CA's certificate, PEM. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** The server's certificate (subject alternative names IP 127.0.0.1 and DNS localhost), PEM. */
    public Path serverCertPem() {
        return dir.resolve("server.pem");
    }

    /** The server's private key, PEM (PKCS#8, unencrypted), as redis-server's {@code --tls-key-file} reads it. */
    public Path serverKeyPem() {
        return dir.resolve("server-key.pem");
    }

    /** PKCS12: the server's key and its chain (server, CA), protected by {@link #storePassword()}. */
    public Path keyStore() {
        return dir.resolve("server.p12");
    }

    /** PKCS12: the CA's certificate as a trusted entry, protected by {@link #storePassword()}. */
    /**
     * A PKCS12 key store (password {@link #storePassword()}) with a client's key and its certificate, signed by the
     * CA, for mutual TLS; its distinguished name is {@link #CLIENT_DN}.
     */
    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    public String storePassword() {
        return storePassword;
    }

    /** A TLS context that trusts the CA, for a test's own administrative connections. */
    public SSLContext clientContext() {
        try (InputStream in = Files.newInputStream(trustStore())) {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(in, storePassword.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException("cannot load " + trustStore(), e);
        }
    }

    private void make() throws IOException, InterruptedException {
        Path caStore = dir.resolve("ca.p12");
        Path request = dir.resolve("server.csr");
        // The CA: a self-signed certificate marked as a CA (basic constraints), able to sign certificates.
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=shaper test CA", "-ext", "bc:c", "-ext", "ku:c=keyCertSign,cRLSign",
                "-keystore", caStore.toString(), "-storetype", "PKCS12", "-storepass", storePassword);
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", storePassword,
                "-file", caPem().toString());
        // The server's key, a request for its certificate, and the CA's answer.
        keytool("-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-keystore", keyStore().toString(), "-storetype", "PKCS12",
                "-storepass", storePassword);
        keytool("-certreq", "-alias", "server", "-keystore", keyStore().toString(), "-storepass", storePassword,
                "-file", request.toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", storePassword,
                "-infile", request.toString(), "-outfile", serverCertPem().toString(), "-validity", "2",
                "-ext", "san=ip:127.0.0.1,dns:localhost", "-ext", "ku:c=digitalSignature,keyEncipherment",
                "-ext", "eku=serverAuth");
        // The key store holds the chain: the CA first (trusted), then the signed certificate replaces the
        // self-signed one.
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem().toString(),
                "-keystore", keyStore().toString(), "-storepass", storePassword);
        keytool("-importcert", "-alias", "server", "-file", serverCertPem().toString(),
                "-keystore", keyStore().toString(), "-storepass", storePassword);
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem().toString(),
                "-keystore", trustStore().toString(), "-storetype", "PKCS12", "-storepass", storePassword);
        // A client's key and certificate (CN=shaper), for mutual TLS: its principal is User:CN=shaper.
        Path clientRequest = dir.resolve("client.csr");
        Path clientCert = dir.resolve("client-cert.pem");
        keytool("-genkeypair", "-alias", "client", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", CLIENT_DN, "-keystore", clientKeyStore().toString(), "-storetype", "PKCS12",
                "-storepass", storePassword);
        keytool("-certreq", "-alias", "client", "-keystore", clientKeyStore().toString(), "-storepass", storePassword,
                "-file", clientRequest.toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", storePassword,
                "-infile", clientRequest.toString(), "-outfile", clientCert.toString(), "-validity", "2",
                "-ext", "ku:c=digitalSignature,keyEncipherment", "-ext", "eku=clientAuth");
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem().toString(),
                "-keystore", clientKeyStore().toString(), "-storepass", storePassword);
        keytool("-importcert", "-alias", "client", "-file", clientCert.toString(),
                "-keystore", clientKeyStore().toString(), "-storepass", storePassword);
        writeServerKey();
        Files.delete(request);
        Files.delete(clientRequest);
        Files.delete(caStore); // the CA's key: nothing else is ever signed with it
        checkChain();
    }

    /** The server's private key out of the PKCS12 store, as PEM (keytool cannot write keys). */
    private void writeServerKey() throws IOException {
        try (InputStream in = Files.newInputStream(keyStore())) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, storePassword.toCharArray());
            PrivateKey key = (PrivateKey) store.getKey("server", storePassword.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            Files.writeString(serverKeyPem(), pem, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the server's key from " + keyStore(), e);
        }
    }

    /** Fails unless the server's certificate verifies against the CA's: a broken chain fails here, not in a test. */
    private void checkChain() throws IOException {
        try (InputStream ca = Files.newInputStream(caPem()); InputStream server = Files.newInputStream(serverCertPem())) {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            Certificate caCert = factory.generateCertificate(ca);
            factory.generateCertificate(server).verify(caCert.getPublicKey());
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the server certificate in " + dir + " does not verify against its CA", e);
        }
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close(); // no prompt can wait for an answer
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(KEYTOOL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("keytool " + args[0] + " did not finish within " + KEYTOOL_TIMEOUT);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + args[0] + " failed (" + process.exitValue() + "): " + output);
        }
    }
}
