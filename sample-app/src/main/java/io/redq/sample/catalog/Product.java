package io.redq.sample.catalog;

import java.math.BigDecimal;

/**
 * A product of the catalog.
 *
 * @param id its id
 * @param name its name
 * @param price its price
 * @param stock how many are left
 * @author Redq team
 * @since 0.1.0
 */
public record Product(long id, String name, BigDecimal price, int stock) {

}
