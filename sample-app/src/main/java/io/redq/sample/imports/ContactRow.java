package io.redq.sample.imports;

/**
 * The payload of {@code import-contact}: one row of a tenant's contact import.
 *
 * @param tenant whose import it is
 * @param line the row's line in the import
 * @author Redq team
 * @since 0.1.0
 */
public record ContactRow(String tenant, int line) {

}
