package dev.weft.core;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keys and certificates from PEM files with the JDK alone (no BouncyCastle): certificate chains,
 * PKCS#8 private keys ({@code BEGIN PRIVATE KEY}, what {@code openssl genpkey} and
 * {@code openssl req -newkey} write) and X.509 public keys ({@code BEGIN PUBLIC KEY}, or the key
 * of a certificate). Key types tried: RSA, EC, Ed25519. A file that cannot be read is an
 * {@link IllegalArgumentException} naming the file, for start-up to report.
 */
public final class Pem {
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");
    private static final String[] KEY_TYPES = {"RSA", "EC", "Ed25519"};

    private Pem() {}

    public static List<X509Certificate> certificates(Path file) {
        try {
            List<X509Certificate> chain = new ArrayList<>();
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (var cert : factory.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file)))) {
                chain.add((X509Certificate) cert);
            }
            if (chain.isEmpty()) {
                throw new IllegalArgumentException(file + " holds no certificate");
            }
            return chain;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read certificates from " + file + ": " + e.getMessage(), e);
        }
    }

    public static PrivateKey privateKey(Path file) {
        return key(file, "PRIVATE KEY", (f, der) -> f.generatePrivate(new PKCS8EncodedKeySpec(der)));
    }

    public static PublicKey publicKey(Path file) {
        if (text(file).contains("BEGIN CERTIFICATE")) {
            return certificates(file).getFirst().getPublicKey();
        }
        return key(file, "PUBLIC KEY", (f, der) -> f.generatePublic(new X509EncodedKeySpec(der)));
    }

    private interface KeyDecoder<K> {
        K decode(KeyFactory factory, byte[] der) throws GeneralSecurityException;
    }

    private static <K> K key(Path file, String label, KeyDecoder<K> decoder) {
        byte[] der = block(file, label);
        for (String type : KEY_TYPES) {
            try {
                return decoder.decode(KeyFactory.getInstance(type), der);
            } catch (GeneralSecurityException e) {
                // try the next key type
            }
        }
        throw new IllegalArgumentException(file + " holds no RSA, EC or Ed25519 " + label.toLowerCase());
    }

    private static byte[] block(Path file, String label) {
        Matcher m = BLOCK.matcher(text(file));
        while (m.find()) {
            if (m.group(1).equals(label)) {
                return Base64.getMimeDecoder().decode(m.group(2));
            }
        }
        throw new IllegalArgumentException(file + " has no PEM block 'BEGIN " + label + "'"
                + (label.equals("PRIVATE KEY") ? " (convert with: openssl pkcs8 -topk8 -nocrypt)" : ""));
    }

    private static String text(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
