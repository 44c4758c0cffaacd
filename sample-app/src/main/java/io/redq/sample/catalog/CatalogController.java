package io.redq.sample.catalog;

import java.math.BigDecimal;

import io.redq.sample.catalog.SearchIndex.IndexEntry;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The products and what the search index holds for them.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class CatalogController {

	private final Catalog catalog;

	private final SearchIndex searchIndex;

	public CatalogController(Catalog catalog, SearchIndex searchIndex) {
		this.catalog = catalog;
		this.searchIndex = searchIndex;
	}

	/**
	 * Return a product and its index entry.
	 * @param id the product's id
	 * @return the product
	 */
	@GetMapping("/products/{id}")
	public ProductView product(@PathVariable long id) {
		return new ProductView(this.catalog.find(id), this.searchIndex.find(id));
	}

	/**
	 * Change a product's name and price; the index follows once the edits stop for a
	 * moment.
	 * @param id the product's id
	 * @param change the new name and price
	 * @return the product
	 */
	@PutMapping(path = "/products/{id}", consumes = MediaType.APPLICATION_JSON_VALUE)
	public ProductView update(@PathVariable long id, @RequestBody ProductChange change) {
		return new ProductView(this.catalog.update(id, change.name(), change.price()), this.searchIndex.find(id));
	}

	/**
	 * A product's new name and price.
	 *
	 * @param name the name
	 * @param price the price
	 */
	public record ProductChange(String name, BigDecimal price) {
	}

	/**
	 * A product and its index entry.
	 *
	 * @param product the product
	 * @param indexed what the search index holds for it, {@code null} before its first
	 * reindex
	 */
	public record ProductView(Product product, @Nullable IndexEntry indexed) {
	}

}
